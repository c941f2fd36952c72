# Hand-written Ruby translation of solution() in ../search_first_pair_sum.py (a pair is an array).
def solution(values, t:)
  first = {}
  values.each_with_index do |v, j|
    return [first[t - v], j] if first.key?(t - v)
    first[v] = j unless first.key?(v)
  end
  nil
end
