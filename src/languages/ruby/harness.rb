# eddy's Ruby harness (run by ruby inside the judge's sandbox, behind the relay in eddy_sandbox/relay.py):
# reads the calls as type-tagged JSON on stdin, loads the answer, calls the named method on each
# argument tuple and writes one JSON line per call on fd 3 (eddy_judge/wire.py has the tags). It never sees
# an expected value: comparison happens in the trusted Python worker.
#
# The answer shares this process. So the harness's helpers live in a frozen module (the answer
# can neither redefine nor reach into them), the answer is evaluated in a binding of its own (an
# anonymous module, not TOPLEVEL_BINDING), values are read through methods captured before the
# answer is loaded (UnboundMethod#bind_call: never a method of the value itself, so a singleton
# #map or #each on an argument changes nothing), and the core classes those reads go through are
# frozen before the answer runs (it cannot redefine Array#[] or Integer#+ under the harness).
require "json"
require "set"
# Loaded now: pp adds methods to core classes, which are frozen before the answer runs.
require "pp"

module EddyHarness
  OUT = IO.new(3, "w")
  OUT.sync = true
  CANDIDATE, FN, ARITY, SEND = ARGV[0], ARGV[1], ARGV[2].to_i, ARGV[3] == "1"
  RESOURCE = [NoMemoryError, SystemStackError, Errno::EAGAIN, Errno::ENOMEM, Errno::EMFILE, Errno::ENFILE, Errno::ENOSPC, Errno::EFBIG].freeze
  CLASS_OF = Kernel.instance_method(:class)
  SAME = BasicObject.instance_method(:equal?)
  IVAR = Kernel.instance_method(:instance_variable_get)
  A_SIZE = Array.instance_method(:size)
  A_AT = Array.instance_method(:[])
  H_PAIRS = Hash.instance_method(:to_a)
  H_KEYS = Hash.instance_method(:keys)
  I_TO_S = Integer.instance_method(:to_s)
  F_NAN = Float.instance_method(:nan?)
  F_INF = Float.instance_method(:infinite?)
  S_DUP = String.instance_method(:dup)
  S_FORCE = String.instance_method(:force_encoding)
  S_VALID = String.instance_method(:valid_encoding?)
  S_SLICE = String.instance_method(:[])
  INSPECT = Kernel.instance_method(:inspect)
  GENERATE = JSON.method(:generate)
  WRITE = IO.instance_method(:write)
  ID = BasicObject.instance_method(:__id__)
  NAME = Module.instance_method(:name)
  THREADS = Thread.method(:list)
  GC_OFF = GC.method(:disable)
  GC_ON = GC.method(:enable)
  PASS = Thread.method(:pass)
  MAX_DEPTH = 200

  GETS = IO.instance_method(:gets)
  INPUT = $stdin
  HALT = Kernel.instance_method(:exit!)
  # The relay hands each step (the load, each call, the end) over with a nonce on stdin, read
  # just before the step; every line of that step carries it. It lives only in these closures
  # (Proc#binding, ObjectSpace.each_object and TracePoint are taken away before the answer runs).
  STEP, SAY = begin
    nonce = ""
    [lambda do
      line = GETS.bind_call(INPUT)
      HALT.bind_call(self, 0) if line.nil?
      nonce = line.chomp
    end,
     lambda { |obj| WRITE.bind_call(OUT, GENERATE.call({ "n" => nonce }.merge(obj)) + "\n") }]
  end

  def self.say(obj)
    SAY.call(obj)
  end

  def self.step
    STEP.call
  end

  def self.class_of(v)
    CLASS_OF.bind_call(v)
  end

  def self.is(v, klass)
    SAME.bind_call(class_of(v), klass)
  end

  # The elements of an Array, the members of a Set, or the [key, value] pairs of a Hash, read
  # without calling anything of the value's own; nil for anything else (subclasses included).
  def self.items(v)
    if is(v, Array)
      n = A_SIZE.bind_call(v)
      out = []
      i = 0
      while i < n
        out << A_AT.bind_call(v, i)
        i += 1
      end
      out
    elsif is(v, Hash)
      H_PAIRS.bind_call(v)
    elsif is(v, Set)
      h = IVAR.bind_call(v, :@hash)
      is(h, Hash) ? H_KEYS.bind_call(h) : nil
    end
  end

  def self.encode(v, depth = 0)
    raise ArgumentError, "value nested too deeply" if depth > MAX_DEPTH
    return v if SAME.bind_call(v, nil) || SAME.bind_call(v, true) || SAME.bind_call(v, false)
    return { "int" => I_TO_S.bind_call(v) } if is(v, Integer)
    if is(v, Float)
      return { "float" => F_NAN.bind_call(v) ? "nan" : F_INF.bind_call(v) ? (v > 0 ? "inf" : "-inf") : v }
    end
    if is(v, String)
      ok = S_VALID.bind_call(S_FORCE.bind_call(S_DUP.bind_call(v), "UTF-8"))
      return ok ? S_DUP.bind_call(v) : { "opaque" => "<a string that is not UTF-8>" }
    end
    xs = items(v)
    return { "opaque" => "<#{NAME.bind_call(class_of(v)) || "object"}>" } if xs.nil?
    if is(v, Hash)
      pairs = []
      xs.each { |k, e| pairs << [encode(k, depth + 1), encode(e, depth + 1)] }
      return { "map" => pairs }
    end
    out = []
    xs.each { |e| out << encode(e, depth + 1) }
    is(v, Set) ? { "set" => out } : { "seq" => out }
  end

  # The ids of every Array, Hash and Set reachable from v (v included).
  def self.reach(v, into, depth = 0)
    return if depth > MAX_DEPTH
    xs = items(v)
    return if xs.nil?
    id = ID.bind_call(v)
    return if into.key?(id)
    into[id] = true
    if is(v, Hash)
      xs.each { |k, e| reach(k, into, depth + 1); reach(e, into, depth + 1) }
    else
      xs.each { |e| reach(e, into, depth + 1) }
    end
  end

  # Whether the answer is, or holds at any depth, a container of the arguments at any depth.
  def self.shares(v, args)
    mine = {}
    args.each { |a| reach(a, mine) }
    theirs = {}
    reach(v, theirs)
    theirs.each_key { |id| return true if mine.key?(id) }
    false
  end

  def self.kind(e)
    RESOURCE.any? { |k| e.is_a?(k) } ? "resource" : "runtime"
  rescue Exception
    "runtime"
  end

  def self.text(e)
    "#{e.class}: #{e.message}"[0, 300]
  rescue Exception
    "an unprintable exception"
  end

  def self.decode(t)
    return t if t.nil? || t == true || t == false || t.is_a?(String)
    tag, x = t.first
    case tag
    when "int" then Integer(x, 10)
    when "float" then { "nan" => Float::NAN, "inf" => Float::INFINITY, "-inf" => -Float::INFINITY }.fetch(x) { Float(x) }
    when "list", "tuple" then x.map { |e| decode(e) }
    when "set" then Set.new(x.map { |e| decode(e) })
    when "dict" then x.to_h { |k, v| [decode(k), decode(v)] }
    else raise ArgumentError, "eddy harness: unknown argument tag"
    end
  end

  # Everything the harness needs from its input, read before the answer is loaded.
  CALLS = JSON.parse(File.read(ARGV[4])).map { |c| c.map { |a| decode(a) } }.freeze
  SOURCE = File.read(CANDIDATE, encoding: "UTF-8")
  # The core classes the harness's reads go through, frozen before the answer runs.
  FROZEN = [Array, Hash, Set, String, Integer, Float, Symbol, NilClass, TrueClass, FalseClass, BasicObject, UnboundMethod, Method,
            JSON, JSON::Ext::Generator::State].freeze

  # An attempt to redefine a class the judge froze (or the harness itself) is tampering.
  def self.tampering(e)
    return nil unless e.is_a?(FrozenError)
    r = e.receiver
    hit = FROZEN.any? { |k| SAME.bind_call(k, r) } || SAME.bind_call(r, EddyHarness) || SAME.bind_call(r, EddyHarness.singleton_class)
    hit ? "an attempt to redefine #{(r.is_a?(Module) && NAME.bind_call(r)) || "the harness"} (frozen by the judge)" : nil
  rescue Exception
    nil
  end
end
# The answer's own namespace: its methods are defined in an anonymous module (not on Object), its
# locals live in this binding (made here, at the top level: its classes and constants are the
# top level's, as in a script of its own).
eddy_space = Module.new
eddy_binding = eddy_space.module_eval { binding }
# The ways into the step closures' nonce go before the answer runs.
Proc.send(:undef_method, :binding)
ObjectSpace.singleton_class.send(:undef_method, :each_object)
TracePoint.singleton_class.send(:undef_method, :new)
TracePoint.singleton_class.send(:undef_method, :trace)
EddyHarness.step # the load's
# Nothing of the harness can be redefined, and the core classes its reads go through stay as they are.
(EddyHarness::FROZEN + [EddyHarness, EddyHarness.singleton_class, Proc, ObjectSpace.singleton_class, TracePoint.singleton_class]).each(&:freeze)

begin
  RubyVM::InstructionSequence.compile(EddyHarness::SOURCE, "candidate.rb")
rescue SyntaxError => e
  EddyHarness.say({ "load" => "syntax", "text" => EddyHarness.text(e) })
  exit!(0)
end
begin
  eddy_binding.eval(EddyHarness::SOURCE, "candidate.rb", 1)
rescue Exception => e
  eddy_tamper = EddyHarness.tampering(e)
  EddyHarness.say(eddy_tamper ? { "tamper" => eddy_tamper } : { "load" => EddyHarness.kind(e), "text" => EddyHarness.text(e) })
  exit!(0)
end
eddy_f = nil
eddy_name = EddyHarness::FN.to_sym
if eddy_binding.local_variable_defined?(eddy_name) && eddy_binding.local_variable_get(eddy_name).respond_to?(:call)
  eddy_f = eddy_binding.local_variable_get(eddy_name)
elsif eddy_space.method_defined?(eddy_name) || eddy_space.private_method_defined?(eddy_name)
  eddy_self = Object.new
  eddy_self.extend(eddy_space)
  eddy_f = eddy_self.method(eddy_name)
end
if eddy_f.nil?
  EddyHarness.say({ "load" => "missing", "text" => "no method named #{EddyHarness::FN} is defined" })
  exit!(0)
end
eddy_required = eddy_f.arity >= 0 ? eddy_f.arity : -eddy_f.arity - 1
if eddy_f.arity >= 0 ? eddy_f.arity != EddyHarness::ARITY : eddy_required > EddyHarness::ARITY
  EddyHarness.say({ "load" => "arity", "text" => "#{EddyHarness::FN} takes #{eddy_required} argument(s); expected #{EddyHarness::ARITY}" })
  exit!(0)
end
EddyHarness.say({ "load" => "ok" })
# Every value the answer returned stays referenced until the end: nothing of the answer's is
# finalized because the harness let go of it.
eddy_kept = []
EddyHarness::CALLS.each_with_index do |args, i|
  EddyHarness.step
  EddyHarness::GC_ON.call
  begin
    v = eddy_f.call(*args)
  rescue Exception => e
    EddyHarness::GC_OFF.call
    eddy_tamper = EddyHarness.tampering(e)
    if eddy_tamper
      EddyHarness.say({ "tamper" => eddy_tamper })
      exit!(0)
    end
    EddyHarness.say({ "i" => i, "err" => EddyHarness.kind(e), "text" => EddyHarness.text(e) })
    next
  end
  # No collection (and so no finalizer of the answer's) while the harness records; whatever a
  # collection already under way left to finalize runs now, before anything is recorded.
  EddyHarness::GC_OFF.call
  EddyHarness::PASS.call
  eddy_kept << v
  if EddyHarness::THREADS.call.size > 1
    EddyHarness.say({ "i" => i, "err" => "runtime", "text" => "the answer left a thread running when its call (#{EddyHarness::FN}) returned (the judge records nothing while answer code runs)" })
    exit!(0)
  end
  msg = begin
    # The arguments first: nothing of the answer's runs between its return and this record.
    after = EddyHarness::SEND ? args.map { |a| EddyHarness.encode(a) } : nil
    { "i" => i, "after" => after, "shares" => EddyHarness.shares(v, args), "v" => EddyHarness.encode(v) }
  rescue Exception => e
    { "i" => i, "v" => { "opaque" => "<a value the harness cannot write: #{EddyHarness.text(e)}>" }, "after" => nil }
  end
  EddyHarness.say(msg)
end
EddyHarness.step
EddyHarness.say({ "done" => true })
exit!(0)
