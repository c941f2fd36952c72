# Hand-written Ruby translation of solution() in ../set_add_range.py.
require "set"

def solution(items, lo:, hi:)
  Set.new(items) | (lo..hi).to_set
end
