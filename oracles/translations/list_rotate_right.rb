# Hand-written Ruby translation of solution() in ../list_rotate_right.py.
def solution(values, k:)
  return [] if values.empty?
  values.rotate(-(k % values.length))
end
