# Hand-written Ruby translation of solution() in ../math_count_multiples.py (Integer#/ floors, as Python's // does).
def solution(a, b, d:)
  return 0 if a > b
  b / d - (a - 1) / d
end
