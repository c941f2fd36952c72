# Hand-written Ruby translation of solution() in ../string_remove_first_k.py.
def solution(s, c:, k:)
  left = k
  s.each_char.reject { |ch| ch == c && (left -= 1) >= 0 }.join
end
