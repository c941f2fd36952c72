# Hand-written Ruby translation of solution() in ../list_value_counts.py.
def solution(values, m:)
  values.tally.select { |_, c| c >= m }
end
