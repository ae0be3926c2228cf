#include "weights/pickle.h"

#include <cstring>

#include "core/errors.h"
#include "weights/byte_util.h"

namespace tir {
namespace weights_internal {

namespace {

using Kind = PyObj::Kind;

// Opcodes a torch.save pickle never needs; named so the refusal is readable.
const char* refused_opcode_name(uint8_t op) {
  switch (op) {
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 0x82: case 0x83: case 0x84: return "EXT";
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'S': return "STRING";
    case 'V': return "UNICODE";
    case 'F': return "FLOAT";
    case 'g': return "GET";
    case 'p': return "PUT";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

std::string hex_byte(uint8_t b) {
  const char* d = "0123456789abcdef";
  return std::string("0x") + d[b >> 4] + d[b & 15];
}

// Two's-complement little-endian integer of n bytes (LONG1/LONG4).
bool decode_long(const uint8_t* p, size_t n, int64_t* out) {
  if (n == 0) { *out = 0; return true; }
  if (n > 8) {
    // Wider encodings still fit when the extra bytes are pure sign extension.
    const uint8_t ext = (p[7] & 0x80) ? 0xFF : 0x00;
    for (size_t k = 8; k < n; ++k) if (p[k] != ext) return false;
    n = 8;
  }
  uint64_t v = 0;
  for (size_t k = 0; k < n; ++k) v |= uint64_t(p[k]) << (8 * k);
  if (n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t(0) << (8 * n);
  std::memcpy(out, &v, 8);
  return true;
}

}  // namespace

std::string describe(const PyObj* o) {
  switch (o->kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int: return "an int";
    case Kind::Float: return "a float";
    case Kind::Str: return "a str";
    case Kind::Bytes: return "a bytes";
    case Kind::Tuple: return "a tuple";
    case Kind::List: return "a list";
    case Kind::Dict: return "a dict";
    case Kind::Global: return quote(o->s);
    case Kind::Storage: return "a storage";
    case Kind::Tensor: return "a tensor";
  }
  return "an object";
}

void dict_set(PyObj* dict, PyObj* key, PyObj* value) {
  if (key->kind == Kind::Str) {
    auto it = dict->str_keys.find(key->s);
    if (it != dict->str_keys.end()) { dict->dict[it->second].second = value; return; }
    dict->str_keys.emplace(key->s, dict->dict.size());
  } else if (key->kind == Kind::Int || key->kind == Kind::Bool) {
    // A hash lookup: a linear scan made a 300k-key dict take minutes.
    auto slot = dict->int_keys.emplace(key->i, dict->dict.size());
    if (!slot.second) { dict->dict[slot.first->second].second = value; return; }
  } else if (key->kind == Kind::None) {
    if (dict->none_key != SIZE_MAX) { dict->dict[dict->none_key].second = value; return; }
    dict->none_key = dict->dict.size();
  }
  dict->dict.emplace_back(key, value);
}

PyObj* Unpickler::make(Kind kind) {
  if (arena_.size() >= limits_.max_objects)
    throw PickleFailure("pickle creates more than " + std::to_string(limits_.max_objects) +
                        " objects (limit max_objects)");
  arena_.push_back(std::make_unique<PyObj>());
  arena_.back()->kind = kind;
  return arena_.back().get();
}

void Unpickler::charge(uint64_t n) {
  work_ += n;
  if (work_ > limits_.max_work)
    throw PickleFailure("pickle needs more than " + std::to_string(limits_.max_work) +
                        " container items (limit max_work)");
}

PyObj* Unpickler::make_str(std::string s) {
  PyObj* o = make(Kind::Str);
  o->s = std::move(s);
  return o;
}

PyObj* Unpickler::load(const uint8_t* data, size_t size, const std::string& where) {
  size_t pos = 0;
  size_t op_pos = 0;
  std::vector<PyObj*> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, PyObj*> memo;

  auto fail = [&](const std::string& msg) {
    throw PickleFailure(msg);
  };
  auto need = [&](size_t n) {
    if (n > size - pos) fail("truncated pickle");
  };
  auto u8 = [&]() { need(1); return data[pos++]; };
  auto u16 = [&]() { need(2); pos += 2; return load_le16(data + pos - 2); };
  auto u32 = [&]() { need(4); pos += 4; return load_le32(data + pos - 4); };
  auto u64 = [&]() { need(8); pos += 8; return load_le64(data + pos - 8); };
  auto bytes = [&](uint64_t n) {
    if (n > size - pos) fail("truncated pickle: a " + std::to_string(n) + "-byte string runs past the end");
    std::string s(reinterpret_cast<const char*>(data + pos), size_t(n));
    pos += size_t(n);
    return s;
  };
  auto line = [&]() {
    const void* nl = std::memchr(data + pos, '\n', size - pos);
    if (!nl) fail("truncated pickle: unterminated GLOBAL name");
    const size_t n = size_t(static_cast<const uint8_t*>(nl) - (data + pos));
    std::string s(reinterpret_cast<const char*>(data + pos), n);
    pos += n + 1;
    return s;
  };
  // Every push goes through here so a hostile pickle cannot grow the stack without bound.
  auto push = [&](PyObj* o) {
    if (stack.size() + marks.size() >= limits_.max_stack)
      fail("pickle stack deeper than " + std::to_string(limits_.max_stack) + " entries (limit max_stack)");
    stack.push_back(o);
  };
  auto pop = [&]() {
    if (stack.empty() || (!marks.empty() && stack.size() <= marks.back())) fail("pickle stack underflow");
    PyObj* o = stack.back();
    stack.pop_back();
    return o;
  };
  auto top = [&]() {
    if (stack.empty() || (!marks.empty() && stack.size() <= marks.back())) fail("pickle stack underflow");
    return stack.back();
  };
  auto pop_mark = [&]() {
    if (marks.empty()) fail("pickle MARK missing");
    std::vector<PyObj*> items(stack.begin() + std::ptrdiff_t(marks.back()), stack.end());
    stack.resize(marks.back());
    marks.pop_back();
    return items;
  };
  auto push_int = [&](int64_t v) {
    PyObj* o = make(Kind::Int);
    o->i = v;
    push(o);
  };
  auto push_str = [&](std::string s, Kind k) {
    PyObj* o = make(k);
    o->s = std::move(s);
    push(o);
  };
  auto push_tuple = [&](std::vector<PyObj*> items) {
    PyObj* o = make(Kind::Tuple);
    o->items = std::move(items);
    push(o);
  };
  auto put = [&](uint64_t idx) {
    if (memo.size() >= limits_.max_memo && !memo.count(idx))
      fail("pickle memo holds more than " + std::to_string(limits_.max_memo) + " entries (limit max_memo)");
    memo[idx] = top();
  };
  auto get = [&](uint64_t idx) {
    auto it = memo.find(idx);
    if (it == memo.end()) fail("pickle memo key " + std::to_string(idx) + " is undefined");
    push(it->second);
  };
  auto set_items = [&](PyObj* dict, const std::vector<PyObj*>& kv) {
    if (dict->kind != Kind::Dict) fail("SETITEM on " + describe(dict) + ", not a dict");
    if (kv.size() % 2) fail("SETITEMS with an odd number of items");
    for (size_t k = 0; k < kv.size(); k += 2) dict_set(dict, kv[k], kv[k + 1]);
  };
  auto append_items = [&](PyObj* list, const std::vector<PyObj*>& items) {
    if (list->kind != Kind::List) fail("APPEND on " + describe(list) + ", not a list");
    list->items.insert(list->items.end(), items.begin(), items.end());
  };

  try {
    for (;;) {
      op_pos = pos;
      const uint8_t op = u8();
      switch (op) {
        case 0x80: u8(); break;                        // PROTO
        case 0x95: u64(); break;                       // FRAME: contents follow inline
        case '.':                                      // STOP
          if (stack.empty()) fail("pickle ended with an empty stack");
          return stack.back();
        case '}': push(make(Kind::Dict)); break;  // EMPTY_DICT
        case ']': push(make(Kind::List)); break;  // EMPTY_LIST
        case ')': push_tuple({}); break;                     // EMPTY_TUPLE
        case '(':                                            // MARK
          if (stack.size() + marks.size() >= limits_.max_stack)
            fail("pickle stack deeper than " + std::to_string(limits_.max_stack) + " entries (limit max_stack)");
          marks.push_back(stack.size());
          break;
        case 't': push_tuple(pop_mark()); break;             // TUPLE
        case 0x85: { PyObj* a = pop(); push_tuple({a}); break; }  // TUPLE1
        case 0x86: { PyObj* b = pop(); PyObj* a = pop(); push_tuple({a, b}); break; }
        case 0x87: {
          PyObj* c = pop(); PyObj* b = pop(); PyObj* a = pop();
          push_tuple({a, b, c});
          break;
        }
        case 'l': {                                          // LIST
          PyObj* o = make(Kind::List);
          o->items = pop_mark();
          push(o);
          break;
        }
        case 'd': {                                          // DICT
          PyObj* o = make(Kind::Dict);
          set_items(o, pop_mark());
          push(o);
          break;
        }
        case 'q': put(u8()); break;                          // BINPUT
        case 'r': put(u32()); break;                         // LONG_BINPUT
        case 0x94: put(memo.size()); break;                  // MEMOIZE
        case 'h': get(u8()); break;                          // BINGET
        case 'j': get(u32()); break;                         // LONG_BINGET
        case '0': pop(); break;                              // POP
        case '1': pop_mark(); break;                         // POP_MARK
        case '2': push(top()); break;             // DUP
        case 'J': push_int(int32_t(u32())); break;           // BININT
        case 'K': push_int(u8()); break;                     // BININT1
        case 'M': push_int(u16()); break;                    // BININT2
        case 0x8a: case 0x8b: {                              // LONG1, LONG4
          const uint64_t n = op == 0x8a ? u8() : u32();
          if (n > size - pos) fail("truncated pickle");
          int64_t v;
          if (!decode_long(data + pos, size_t(n), &v)) fail("integer in pickle does not fit in 64 bits");
          pos += size_t(n);
          push_int(v);
          break;
        }
        case 'G': {                                          // BINFLOAT (big-endian)
          need(8);
          uint64_t bits = 0;
          for (int k = 0; k < 8; ++k) bits = (bits << 8) | data[pos + size_t(k)];
          pos += 8;
          PyObj* o = make(Kind::Float);
          std::memcpy(&o->f, &bits, 8);
          push(o);
          break;
        }
        case 0x88: case 0x89: {                              // NEWTRUE, NEWFALSE
          PyObj* o = make(Kind::Bool);
          o->b = op == 0x88;
          o->i = o->b;
          push(o);
          break;
        }
        case 'N': push(make(Kind::None)); break;  // NONE
        case 'X': push_str(bytes(u32()), Kind::Str); break;  // BINUNICODE
        case 0x8c: push_str(bytes(u8()), Kind::Str); break;  // SHORT_BINUNICODE
        case 0x8d: push_str(bytes(u64()), Kind::Str); break; // BINUNICODE8
        case 'U': push_str(bytes(u8()), Kind::Str); break;   // SHORT_BINSTRING
        case 'T': {                                          // BINSTRING
          const int32_t n = int32_t(u32());
          if (n < 0) fail("negative BINSTRING length");
          push_str(bytes(uint64_t(n)), Kind::Str);
          break;
        }
        case 'C': push_str(bytes(u8()), Kind::Bytes); break;  // SHORT_BINBYTES
        case 'B': push_str(bytes(u32()), Kind::Bytes); break; // BINBYTES
        case 0x8e: push_str(bytes(u64()), Kind::Bytes); break;  // BINBYTES8
        case 's': {                                          // SETITEM
          PyObj* v = pop(); PyObj* k = pop();
          set_items(top(), {k, v});
          break;
        }
        case 'u': { auto kv = pop_mark(); set_items(top(), kv); break; }     // SETITEMS
        case 'a': { PyObj* v = pop(); append_items(top(), {v}); break; }     // APPEND
        case 'e': { auto items = pop_mark(); append_items(top(), items); break; }  // APPENDS
        case 'c': {                                          // GLOBAL
          std::string module = line();
          std::string name = line();
          push(find_class(module, name));
          break;
        }
        case 0x93: {                                         // STACK_GLOBAL
          PyObj* name = pop(); PyObj* module = pop();
          if (name->kind != Kind::Str || module->kind != Kind::Str) fail("STACK_GLOBAL needs two strs");
          push(find_class(module->s, name->s));
          break;
        }
        case 'R': {                                          // REDUCE
          PyObj* args = pop(); PyObj* callable = pop();
          if (callable->kind != Kind::Global) fail("REDUCE of " + describe(callable) + ", not a callable");
          if (args->kind != Kind::Tuple) fail("REDUCE arguments for " + describe(callable) + " are not a tuple");
          push(reduce(callable, args));
          break;
        }
        case 'Q': { PyObj* pid = pop(); push(persistent_load(pid)); break; }  // BINPERSID
        case 'b': { PyObj* state = pop(); build(top(), state); break; }  // BUILD
        default: {
          const char* name = refused_opcode_name(op);
          fail("unsupported pickle opcode " + hex_byte(op) + (name ? std::string(" (") + name + ")" : "") +
               ": only the subset torch.save(state_dict) writes is understood");
        }
      }
    }
  } catch (const PickleFailure& e) {
    throw WeightLoadError(where + ", byte " + std::to_string(op_pos) + ": " + e.what());
  }
}

}  // namespace weights_internal
}  // namespace tir
