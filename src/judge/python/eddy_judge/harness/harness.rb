# eddy's Ruby harness (run by ruby inside the judge's sandbox, behind the relay in languages.py):
# reads the calls as type-tagged JSON on stdin, loads the answer, calls the named method on each
# argument tuple and writes one JSON line per call on fd 3 (wire.py has the tags). It never sees
# an expected value: comparison happens in the trusted Python worker.
require "json"
require "set"

EDDY_OUT = IO.new(3, "w")
EDDY_OUT.sync = true
EDDY_CANDIDATE, EDDY_FN, EDDY_ARITY, EDDY_SEND = ARGV[0], ARGV[1], ARGV[2].to_i, ARGV[3] == "1"
EDDY_RESOURCE = [NoMemoryError, SystemStackError, Errno::EAGAIN, Errno::ENOMEM, Errno::EMFILE, Errno::ENFILE, Errno::ENOSPC, Errno::EFBIG].freeze

def eddy_say(obj)
  EDDY_OUT.write(JSON.generate(obj) + "\n")
end

def eddy_decode(t)
  return t if t.nil? || t == true || t == false || t.is_a?(String)
  tag, x = t.first
  case tag
  when "int" then Integer(x, 10)
  when "float" then { "nan" => Float::NAN, "inf" => Float::INFINITY, "-inf" => -Float::INFINITY }.fetch(x) { Float(x) }
  when "list", "tuple" then x.map { |e| eddy_decode(e) }
  when "set" then Set.new(x.map { |e| eddy_decode(e) })
  when "dict" then x.to_h { |k, v| [eddy_decode(k), eddy_decode(v)] }
  else raise ArgumentError, "eddy harness: unknown argument tag"
  end
end

def eddy_encode(v, depth = 0)
  raise ArgumentError, "value nested too deeply" if depth > 200
  case v
  when nil, true, false then v
  when String then v.dup.force_encoding("UTF-8").valid_encoding? ? v : { "opaque" => v.inspect[0, 300] }
  when Integer then { "int" => v.to_s }
  when Float then { "float" => v.nan? ? "nan" : v.infinite? ? (v > 0 ? "inf" : "-inf") : v }
  when Array then { "seq" => v.map { |e| eddy_encode(e, depth + 1) } }
  when Set then { "set" => v.map { |e| eddy_encode(e, depth + 1) } }
  when Hash then { "map" => v.map { |k, e| [eddy_encode(k, depth + 1), eddy_encode(e, depth + 1)] } }
  else { "opaque" => v.inspect[0, 300] }
  end
end

def eddy_shares(v, args)
  return false unless v.is_a?(Array) || v.is_a?(Hash) || v.is_a?(Set)
  args.any? { |a| (a.is_a?(Array) || a.is_a?(Hash) || a.is_a?(Set)) && (v.equal?(a) || (v.is_a?(Array) && v.any? { |e| e.equal?(a) })) }
end

def eddy_kind(e)
  EDDY_RESOURCE.any? { |k| e.is_a?(k) } ? "resource" : "runtime"
end

def eddy_text(e)
  "#{e.class}: #{e.message}"[0, 300]
rescue Exception
  "an unprintable exception"
end

calls = JSON.parse($stdin.read)
source = File.read(EDDY_CANDIDATE, encoding: "UTF-8")
begin
  RubyVM::InstructionSequence.compile(source, "candidate.rb")
rescue SyntaxError => e
  eddy_say({ "load" => "syntax", "text" => eddy_text(e) })
  exit!(0)
end
begin
  TOPLEVEL_BINDING.eval(source, "candidate.rb", 1)
rescue Exception => e
  eddy_say({ "load" => eddy_kind(e), "text" => eddy_text(e) })
  exit!(0)
end
f = nil
if TOPLEVEL_BINDING.local_variable_defined?(EDDY_FN.to_sym) && TOPLEVEL_BINDING.local_variable_get(EDDY_FN.to_sym).respond_to?(:call)
  f = TOPLEVEL_BINDING.local_variable_get(EDDY_FN.to_sym)
elsif (Object.private_method_defined?(EDDY_FN) || Object.method_defined?(EDDY_FN)) && method(EDDY_FN).owner == Object
  f = method(EDDY_FN)
end
if f.nil?
  eddy_say({ "load" => "missing", "text" => "no method named #{EDDY_FN} is defined" })
  exit!(0)
end
required = f.arity >= 0 ? f.arity : -f.arity - 1
if f.arity >= 0 ? f.arity != EDDY_ARITY : required > EDDY_ARITY
  eddy_say({ "load" => "arity", "text" => "#{EDDY_FN} takes #{required} argument(s); expected #{EDDY_ARITY}" })
  exit!(0)
end
eddy_say({ "load" => "ok" })
calls.each_with_index do |c, i|
  args = c.map { |a| eddy_decode(a) }
  begin
    v = f.call(*args)
  rescue Exception => e
    eddy_say({ "i" => i, "err" => eddy_kind(e), "text" => eddy_text(e) })
    next
  end
  msg = begin
    { "i" => i, "v" => eddy_encode(v), "after" => EDDY_SEND ? args.map { |a| eddy_encode(a) } : nil, "shares" => eddy_shares(v, args) }
  rescue Exception => e
    { "i" => i, "v" => { "opaque" => "<a value the harness cannot write: #{eddy_text(e)}>" }, "after" => nil }
  end
  eddy_say(msg)
end
eddy_say({ "done" => true })
exit!(0)
