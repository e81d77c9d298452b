// gpurtl co-simulation harness, shared by every unit.
//
// A unit's rendered glue (templates/sim/glue.cpp) registers the top module's stream ports
// with a Bench; the Bench then
//   - drives each input port from its vector file, holding valid low for a random gap
//     (probability --gap per idle clock) and holding valid and data until the transfer;
//     while valid is low the data lines carry junk, so a DUT that latches them is caught;
//   - holds each output's ready low at random (probability --stall per clock) and checks
//     every transfer against the expected vector file, in order: nothing lost, nothing
//     duplicated, valid and data stable while stalled, nothing extra once all arrived;
//   - serves memory read ports from a memory model: each burst request is answered after
//     --mem-latency clocks plus up to --mem-jitter more, bursts in order, one beat per
//     clock at most, a beat slot lost with probability --mem-gap (bandwidth), and the
//     request ready held low with probability --mem-stall (backpressure); the word at
//     each address is memory_word(address) (rng.h);
//   - reads each state probe (an FSM's state register, public to Verilator) after every
//     clock and counts the clocks in each named state;
//   - counts clocks and writes a JSON report.
// Port i draws its gaps or stalls from RNG stream kStreamPortBase + i of --seed, which
// the Rust cycle model replays (src/model/hs_chain.rs).
#pragma once

#include <algorithm>
#include <verilated.h>
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <array>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rng.h"

namespace gpurtl {

using Word = std::vector<uint32_t>;  // 32-bit limbs, least significant first

inline size_t limbs(int width) { return static_cast<size_t>((width + 31) / 32); }

inline void mask(Word& w, int width) {
  w.resize(limbs(width), 0);
  if (width % 32 != 0) w.back() &= (1u << (width % 32)) - 1u;
}

// Verilator keeps ports of up to 64 bits in integers and wider ones in VlWide.
template <typename T>
void put(T& sig, const Word& w) {
  uint64_t v = w.empty() ? 0 : w[0];
  if (w.size() > 1) v |= static_cast<uint64_t>(w[1]) << 32;
  sig = static_cast<T>(v);
}
template <std::size_t N>
void put(VlWide<N>& sig, const Word& w) {
  for (std::size_t i = 0; i < N; ++i) sig[i] = i < w.size() ? w[i] : 0;
}
template <typename T>
Word get(const T& sig, int width) {
  const uint64_t v = static_cast<uint64_t>(sig);
  Word w(limbs(width), 0);
  w[0] = static_cast<uint32_t>(v);
  if (w.size() > 1) w[1] = static_cast<uint32_t>(v >> 32);
  mask(w, width);
  return w;
}
template <std::size_t N>
Word get(const VlWide<N>& sig, int width) {
  Word w(limbs(width), 0);
  for (std::size_t i = 0; i < N && i < w.size(); ++i) w[i] = sig[i];
  mask(w, width);
  return w;
}

inline std::string to_hex(const Word& w, int width) {
  const int digits = (width + 3) / 4;
  std::string s;
  for (int d = digits - 1; d >= 0; --d) {
    const uint32_t nibble = (w[static_cast<size_t>(d / 8)] >> ((d % 8) * 4)) & 0xFu;
    s.push_back("0123456789abcdef"[nibble]);
  }
  return s;
}

inline bool parse_hex(const std::string& text, int width, Word& out) {
  if (text.size() != static_cast<size_t>((width + 3) / 4)) return false;
  out.assign(limbs(width), 0);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[text.size() - 1 - i];
    uint32_t v;
    if (c >= '0' && c <= '9') v = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f') v = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v = static_cast<uint32_t>(c - 'A' + 10);
    else return false;
    out[i / 8] |= v << ((i % 8) * 4);
  }
  Word masked = out;
  mask(masked, width);
  return masked == out;
}

struct Options {
  std::string vectors = ".";
  std::string report;
  std::string trace;
  uint64_t seed = 1;
  double gap = 0.0;
  double stall = 0.0;
  uint64_t max_idle = 100000;  // clocks without an output transfer before "stuck"
  uint64_t drain = 64;         // clocks watched for extra outputs after the last one
  uint64_t quiet = 0;          // clocks a read/write memory stays idle before the run ends
  // Inputs held back until an output has delivered so many items: "in=out:items".
  std::vector<std::string> start_after;
  uint64_t max_errors = 20;
  // Every so many clocks, "progress <outputs done> <outputs expected> <clock>" on stderr
  // (0: never), for the caller's progress display.
  uint64_t progress = 0;
  uint64_t mem_latency = 0;
  uint64_t mem_jitter = 0;
  double mem_gap = 0.0;
  double mem_stall = 0.0;
  uint64_t mem_row_bits = 0;     // read/write memory: row = address >> bits (0: no rows)
  uint64_t mem_row_penalty = 0;  // read/write memory: clocks added when the row changes
  // Output ports whose items may wait for ever by the unit's policy: stuck only when no
  // port of the unit moves for max_idle clocks.
  std::vector<std::string> may_starve;
};

inline Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = (i + 1 < argc) ? argv[i + 1] : nullptr;
    auto need = [&]() {
      if (!v) {
        std::fprintf(stderr, "harness: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      ++i;
      return std::string(v);
    };
    if (a == "--vectors") o.vectors = need();
    else if (a == "--report") o.report = need();
    else if (a == "--trace") o.trace = need();
    else if (a == "--seed") o.seed = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--gap") o.gap = std::strtod(need().c_str(), nullptr);
    else if (a == "--stall") o.stall = std::strtod(need().c_str(), nullptr);
    else if (a == "--max-idle") o.max_idle = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--drain") o.drain = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--quiet") o.quiet = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--start-after") o.start_after.push_back(need());
    else if (a == "--max-errors") o.max_errors = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--progress") o.progress = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--mem-latency") o.mem_latency = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--mem-jitter") o.mem_jitter = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--mem-gap") o.mem_gap = std::strtod(need().c_str(), nullptr);
    else if (a == "--mem-stall") o.mem_stall = std::strtod(need().c_str(), nullptr);
    else if (a == "--mem-row-bits") o.mem_row_bits = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--mem-row-penalty") o.mem_row_penalty = std::strtoull(need().c_str(), nullptr, 10);
    else if (a == "--may-starve") o.may_starve.push_back(need());
    else if (a.rfind("+verilator", 0) == 0) continue;
    else {
      std::fprintf(stderr, "harness: unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out.push_back(c);
    }
  }
  return out;
}

struct InPort {
  std::string name;
  int width;
  CData* valid;
  CData* ready;
  std::function<void(const Word&)> set_data;
  std::vector<Word> items;
  size_t next = 0;
  bool presenting = false;
  Rng rng;
  // Presents nothing until output after_port has delivered after_items (--start-after).
  int after_port = -1;
  uint64_t after_items = 0;
};

// A state register's coverage: clocks per named state, and in values with no name.
struct Probe {
  std::string name;
  std::function<uint64_t()> value;
  std::vector<std::pair<uint64_t, std::string>> states;
  std::vector<uint64_t> clocks;
  uint64_t unnamed = 0;

  void sample() {
    const uint64_t v = value();
    for (size_t k = 0; k < states.size(); ++k) {
      if (states[k].first == v) {
        ++clocks[k];
        return;
      }
    }
    ++unnamed;
  }
};

struct OutPort {
  std::string name;
  int width;
  CData* valid;
  CData* ready;
  std::function<Word()> data;
  std::vector<Word> expected;
  size_t next = 0;
  uint64_t mismatches = 0;
  uint64_t extra = 0;
  bool held = false;  // valid && !ready at the last clock edge
  Word held_data;
  uint64_t last_transfer = 0;
  uint64_t first_transfer = 0;  // the clock of its first transaction (0 before any)
  uint64_t longest_wait = 0;  // clocks between transfers (from reset to the first), at most
  bool may_starve = false;    // may wait for ever by policy (Options::may_starve)
  bool stuck = false;  // gave up waiting: the rest counts as lost
  uint64_t stuck_after = 0;  // its last transfer when it was given up on
  uint64_t late = 0;         // transactions that came in the drain, after it was given up on
  Rng rng;
};

struct MemPort {
  std::string name;
  int addr_width;
  int data_width;
  uint32_t beats;
  CData* req_valid;
  CData* req_ready;
  std::function<Word()> req_addr;
  CData* rsp_valid;
  CData* rsp_ready;
  std::function<void(const Word&)> set_rsp;
  struct Burst {
    uint64_t addr;
    uint64_t due;  // first clock its first beat may be offered
  };
  std::deque<Burst> pending;
  uint32_t beat = 0;  // next beat of the head burst
  bool offering = false;
  bool req_held = false;  // req valid && !ready at the last edge
  Word req_held_addr;
  uint64_t requests = 0;
  uint64_t beats_sent = 0;
  Rng rng;
  // Words that <name>_words.vec places ({data[31:0], byte address[31:0]} per line, when
  // the file exists: a real texture); every other word is memory_word(address).
  std::map<uint64_t, uint32_t> words;
};

// The data of beat `beat` of a burst at byte address `addr`: data_width / 32 words,
// least significant first (a narrower bus takes the low bits of one word).
inline Word memory_beat(uint64_t addr, uint32_t beat, int data_width) {
  const uint64_t bytes = static_cast<uint64_t>((data_width + 7) / 8);
  Word w(limbs(data_width), 0);
  for (size_t i = 0; i < w.size(); ++i) w[i] = memory_word(addr + beat * bytes + 4 * i);
  mask(w, data_width);
  return w;
}

// Bits lsb .. lsb + n - 1 (n at most 32) of w.
inline uint32_t bits_at(const Word& w, int lsb, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) {
    const int bit = lsb + i;
    if (static_cast<size_t>(bit / 32) < w.size() && ((w[static_cast<size_t>(bit / 32)] >> (bit % 32)) & 1u))
      v |= 1u << i;
  }
  return v;
}

inline uint64_t word_u64(const Word& w) {
  uint64_t v = w.empty() ? 0 : w[0];
  if (w.size() > 1) v |= static_cast<uint64_t>(w[1]) << 32;
  return v;
}

// A read/write memory port (mem_arb's): one request per burst {addr, len = beats - 1,
// write, id}; a write's beats arrive on wdata, a read's beats leave on rdata, one beat per
// clock at most on the one data bus. Reads are served in request order among reads, writes
// in request order among writes. A read's first beat is due --mem-latency (+ up to
// --mem-jitter) clocks after its request; a write is posted: its beats are taken from the
// clock after its request, also while earlier reads wait for their latency. A burst holds
// the bus from its first beat to its last; when the bus is free and both a read and a write
// may start, the older request goes first. Ordering is that of the requests: a read returns
// every earlier write and no later one (it waits for earlier writes to its beats that have
// not finished; later writes that finish first do not show in it). A burst whose row
// (address >> --mem-row-bits) differs from the previous burst's starts --mem-row-penalty
// clocks after the previous burst's last beat at the earliest (row activation). A beat slot
// is lost with probability --mem-gap, and the request ready is low with probability
// --mem-stall. Memory starts as memory_word(address) and keeps what is written. A write
// beat carries byte strobes beside its data (src/iface/mem_arb.rs wbeat_layout: the glue
// passes where each lies): strobe bit i enables byte i of data, and a byte whose strobe
// is low keeps what memory held. At the end memory is compared with <name>_image.vec
// ({address, data} per beat a write beat went to), and every beat address written must be
// listed there. src/model/memory.rs RwMemory is the same.
struct RwMemBinding {
  CData* req_valid;
  CData* req_ready;
  std::function<Word()> req_addr;
  std::function<Word()> req_len;
  std::function<Word()> req_write;
  std::function<Word()> req_id;
  CData* wdata_valid;
  CData* wdata_ready;
  std::function<Word()> wdata;
  CData* rdata_valid;
  CData* rdata_ready;
  std::function<void(const Word&)> set_rdata;
};

struct RwMem {
  std::string name;
  int addr_width;
  int len_width;
  int id_width;
  int data_width;        // a read beat, and a write beat's data
  int wdata_width;       // a write beat: data and byte strobes
  int wdata_data_lsb;
  int wdata_strb_lsb;
  RwMemBinding b;
  struct Op {
    bool write;
    uint64_t addr;
    uint32_t beats;
    uint64_t id;
    uint64_t accepted;
    uint64_t due;
    uint64_t seq;  // request order, over reads and writes
  };
  std::deque<Op> reads, writes;  // each in request order
  uint64_t next_seq = 0;
  enum class Bus { kFree, kRead, kWrite };
  Bus bus = Bus::kFree;    // the burst holding the data bus (its first beat has moved)
  Bus next = Bus::kFree;   // the burst offered or taken this clock
  uint32_t beat = 0;       // beats moved of the burst holding the bus
  bool offering = false;   // a read beat on rdata
  bool taking = false;     // wdata ready this clock
  bool req_held = false;
  Word req_held_value;
  bool wdata_held = false;
  Word wdata_held_value;
  bool have_row = false;   // a burst has completed: its row and last beat's clock
  uint64_t last_row = 0;
  uint64_t last_end = 0;
  std::map<uint64_t, Word> image;  // beat address -> data, for beats written
  // Beat address -> {seq, data} of the writes a pending read may still return.
  std::map<uint64_t, std::vector<std::pair<uint64_t, Word>>> history;
  std::vector<std::pair<uint64_t, Word>> expected_image;
  uint64_t requests = 0, read_beats = 0, write_beats = 0;
  // Back-to-back bursts of different requesters: the next burst was requested and due
  // by the time the previous one's last beat moved.
  bool have_prev = false;
  uint64_t prev_id = 0, prev_last = 0;
  uint64_t switches = 0, switch_idle_total = 0, switch_idle_max = 0;
  // Per requester id: bursts and beats accepted, read and written.
  std::map<uint64_t, std::array<uint64_t, 4>> by_id;  // {read bursts, read beats, write bursts, write beats}
  uint64_t last_activity = 0;
  uint64_t image_mismatches = 0;
  bool stuck = false;
  Rng rng;

  uint64_t beat_bytes() const { return static_cast<uint64_t>(data_width / 8); }
  // The beat at `addr` now.
  Word read_beat(uint64_t addr) const {
    const auto it = image.find(addr);
    return it != image.end() ? it->second : memory_beat(addr, 0, data_width);
  }
  // The beat at `addr` as the request numbered `seq` sees it: the last earlier write.
  Word read_beat_at(uint64_t addr, uint64_t seq) const {
    const auto it = history.find(addr);
    if (it != history.end()) {
      for (auto e = it->second.rbegin(); e != it->second.rend(); ++e)
        if (e->first < seq) return e->second;
    }
    return memory_beat(addr, 0, data_width);
  }
  // A write beat lands on the bytes its strobes enable: keep only what a pending read can
  // still see. Writes land in request order, so the beat now is what it merges with.
  void write_beat(uint64_t addr, uint64_t seq, const Word& wbeat) {
    Word data = read_beat(addr);
    for (int byte = 0; byte < data_width / 8; ++byte) {
      if (!bits_at(wbeat, wdata_strb_lsb + byte, 1)) continue;
      const uint32_t v = bits_at(wbeat, wdata_data_lsb + 8 * byte, 8);
      uint32_t& limb = data[static_cast<size_t>(byte / 4)];
      limb = (limb & ~(0xffu << (8 * (byte % 4)))) | (v << (8 * (byte % 4)));
    }
    image[addr] = data;
    auto& h = history[addr];
    h.emplace_back(seq, data);
    const uint64_t oldest = reads.empty() ? next_seq : reads.front().seq;
    size_t keep = 0;
    for (size_t i = 0; i < h.size(); ++i)
      if (h[i].first < oldest) keep = i;
    h.erase(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(keep));
  }
  bool idle() const { return reads.empty() && writes.empty(); }
  size_t outstanding() const { return reads.size() + writes.size(); }
  Op& current() { return bus == Bus::kRead || next == Bus::kRead ? reads.front() : writes.front(); }
  // The first clock `op` may move its first beat: its due clock, or later when it opens a
  // new row.
  uint64_t start_due(const Op& op, uint64_t row_bits, uint64_t row_penalty) const {
    if (row_bits && have_row && (op.addr >> row_bits) != last_row) {
      const uint64_t open = last_end + 1 + row_penalty;
      return op.due > open ? op.due : open;
    }
    return op.due;
  }
  // The head read may start: due, and no earlier write to its beats still pending.
  bool read_may_start(uint64_t cycle, uint64_t row_bits, uint64_t row_penalty) const {
    if (reads.empty()) return false;
    const Op& r = reads.front();
    if (start_due(r, row_bits, row_penalty) > cycle) return false;
    const uint64_t lo = r.addr, hi = r.addr + r.beats * beat_bytes();
    for (const Op& w : writes) {
      if (w.seq > r.seq) break;
      if (w.addr < hi && lo < w.addr + w.beats * beat_bytes()) return false;
    }
    return true;
  }
  bool write_may_start(uint64_t cycle, uint64_t row_bits, uint64_t row_penalty) const {
    return !writes.empty() && start_due(writes.front(), row_bits, row_penalty) <= cycle;
  }
  // Which burst moves a beat this clock, before the lost-slot draw: the one holding the
  // bus, else the older of a read and a write that may start.
  Bus choose(uint64_t cycle, uint64_t row_bits, uint64_t row_penalty) const {
    if (bus != Bus::kFree) return bus;
    const bool r = read_may_start(cycle, row_bits, row_penalty);
    const bool w = write_may_start(cycle, row_bits, row_penalty);
    if (r && w) return reads.front().seq < writes.front().seq ? Bus::kRead : Bus::kWrite;
    return r ? Bus::kRead : (w ? Bus::kWrite : Bus::kFree);
  }
};

class Bench {
 public:
  Bench(const char* unit, int argc, char** argv) : unit_(unit), opt_(parse_options(argc, argv)) {}

  const Options& options() const { return opt_; }

  void add_input(const char* name, int width, CData* valid, CData* ready,
                 std::function<void(const Word&)> set_data) {
    InPort p;
    p.name = name;
    p.width = width;
    p.valid = valid;
    p.ready = ready;
    p.set_data = std::move(set_data);
    p.rng = Rng::stream(opt_.seed, kStreamPortBase + port_count_++);
    p.items = load(p.name, width);
    ins_.push_back(std::move(p));
  }

  // A state register (an FSM's state_q) read after every clock of the run: the report
  // counts the clocks in each named state and in values with no name.
  void add_probe(const char* name, std::function<uint64_t()> value,
                 std::vector<std::pair<uint64_t, std::string>> states) {
    Probe q;
    q.name = name;
    q.value = std::move(value);
    q.states = std::move(states);
    q.clocks.assign(q.states.size(), 0);
    probes_.push_back(std::move(q));
  }

  void add_output(const char* name, int width, CData* valid, CData* ready,
                  std::function<Word()> data) {
    OutPort p;
    p.name = name;
    p.width = width;
    p.valid = valid;
    p.ready = ready;
    p.data = std::move(data);
    p.rng = Rng::stream(opt_.seed, kStreamPortBase + port_count_++);
    p.expected = load(p.name, width);
    outs_.push_back(std::move(p));
  }

  void add_memory(const char* name, int addr_width, int data_width, uint32_t beats,
                  CData* req_valid, CData* req_ready, std::function<Word()> req_addr,
                  CData* rsp_valid, CData* rsp_ready, std::function<void(const Word&)> set_rsp) {
    MemPort m;
    m.name = name;
    m.addr_width = addr_width;
    m.data_width = data_width;
    m.beats = beats;
    m.req_valid = req_valid;
    m.req_ready = req_ready;
    m.req_addr = std::move(req_addr);
    m.rsp_valid = rsp_valid;
    m.rsp_ready = rsp_ready;
    m.set_rsp = std::move(set_rsp);
    m.rng = Rng::stream(opt_.seed, kStreamPortBase + port_count_++);
    if (std::ifstream(opt_.vectors + "/" + m.name + "_words.vec")) {
      for (const Word& w : load(m.name + "_words", 64)) m.words[w[0]] = w[1];
    }
    mems_.push_back(std::move(m));
  }

  void add_rw_memory(const char* name, int addr_width, int len_width, int id_width,
                     int data_width, int wdata_width, int wdata_data_lsb, int wdata_strb_lsb,
                     RwMemBinding binding) {
    RwMem m;
    m.name = name;
    m.addr_width = addr_width;
    m.len_width = len_width;
    m.id_width = id_width;
    m.data_width = data_width;
    m.wdata_width = wdata_width;
    m.wdata_data_lsb = wdata_data_lsb;
    m.wdata_strb_lsb = wdata_strb_lsb;
    if (data_width % 8 != 0 || wdata_data_lsb + data_width > wdata_width ||
        wdata_strb_lsb + data_width / 8 > wdata_width)
      error("memory port " + m.name + ": a write beat of " + std::to_string(wdata_width) +
            " bits cannot hold " + std::to_string(data_width) + " data bits and their strobes");
    m.b = std::move(binding);
    m.rng = Rng::stream(opt_.seed, kStreamPortBase + port_count_++);
    for (const Word& w : load(m.name + "_image", addr_width + data_width)) {
      Word data(limbs(data_width), 0);
      for (int bit = 0; bit < data_width; ++bit) {
        const int src = addr_width + bit;
        if ((w[static_cast<size_t>(src / 32)] >> (src % 32)) & 1u)
          data[static_cast<size_t>(bit / 32)] |= 1u << (bit % 32);
      }
      uint64_t addr = w[0];
      if (addr_width > 32 && w.size() > 1) addr |= static_cast<uint64_t>(w[1]) << 32;
      if (addr_width < 64) addr &= (uint64_t{1} << addr_width) - 1;
      m.expected_image.emplace_back(addr, data);
    }
    rws_.push_back(std::move(m));
  }

  // Resets the DUT, runs until every expected output arrived (or an error), writes the
  // report. Returns the process exit code: 0 passed, 1 failed.
  template <class Top>
  int run(VerilatedContext& ctx, Top& top, CData& clk, CData& rst, bool rst_active_low) {
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> fst;
    if (!opt_.trace.empty()) {
      ctx.traceEverOn(true);
      fst.reset(new VerilatedFstC);
      top.trace(fst.get(), 99);
      fst->open(opt_.trace.c_str());
    }
    auto dump = [&]() {
      if (fst) fst->dump(ctx.time());
    };
#else
    if (!opt_.trace.empty()) error("this build has no FST tracing (rebuild with --trace)");
    auto dump = []() {};
#endif
    Rng junk = Rng::stream(opt_.seed, kStreamJunk);
    auto tick = [&]() {
      clk = 1;
      top.eval();
      ctx.timeInc(1);
      dump();
      clk = 0;
      top.eval();
      ctx.timeInc(1);
      dump();
    };
    auto drive_junk = [&](InPort& p) {
      Word w(limbs(p.width));
      for (auto& l : w) l = static_cast<uint32_t>(junk.next());
      mask(w, p.width);
      p.set_data(w);
    };

    // Reset: inputs idle, outputs not ready.
    for (auto& p : ins_) {
      *p.valid = 0;
      drive_junk(p);
    }
    for (auto& p : outs_) *p.ready = 0;
    for (auto& m : mems_) {
      *m.req_ready = 0;
      *m.rsp_valid = 0;
      m.set_rsp(Word(limbs(m.data_width), 0));
    }
    for (auto& m : rws_) {
      *m.b.req_ready = 0;
      *m.b.wdata_ready = 0;
      *m.b.rdata_valid = 0;
      m.b.set_rdata(Word(limbs(m.data_width), 0));
    }
    clk = 0;
    rst = rst_active_low ? 0 : 1;
    top.eval();
    dump();
    for (int i = 0; i < 4; ++i) tick();
    rst = rst_active_low ? 1 : 0;
    top.eval();

    for (const auto& name : opt_.may_starve) {
      bool found = false;
      for (auto& p : outs_) {
        if (p.name == name) {
          p.may_starve = true;
          found = true;
        }
      }
      if (!found) {
        std::fprintf(stderr, "harness: --may-starve %s: no such output port\n", name.c_str());
        std::exit(2);
      }
    }

    for (const auto& spec : opt_.start_after) {
      const size_t eq = spec.find('='), colon = spec.rfind(':');
      bool found = false;
      if (eq != std::string::npos && colon != std::string::npos && colon > eq) {
        const std::string in = spec.substr(0, eq), out = spec.substr(eq + 1, colon - eq - 1);
        for (size_t k = 0; k < outs_.size(); ++k) {
          if (outs_[k].name != out) continue;
          for (auto& p : ins_) {
            if (p.name != in) continue;
            p.after_port = static_cast<int>(k);
            p.after_items = std::strtoull(spec.substr(colon + 1).c_str(), nullptr, 10);
            found = true;
          }
        }
      }
      if (!found) {
        std::fprintf(stderr, "harness: --start-after %s: no such input and output\n", spec.c_str());
        std::exit(2);
      }
    }

    uint64_t cycle = 0;
    while (!all_arrived() && errors_.size() < opt_.max_errors) {
      // Drive: an idle input offers its next item unless a gap is drawn (or it waits for
      // an output, --start-after).
      for (auto& p : ins_) {
        const bool held = p.after_port >= 0 && outs_[p.after_port].next < p.after_items;
        if (!p.presenting && !held && p.next < p.items.size() && !p.rng.chance(opt_.gap)) {
          p.presenting = true;
          p.set_data(p.items[p.next]);
        }
        *p.valid = p.presenting ? 1 : 0;
        if (!p.presenting) drive_junk(p);
      }
      for (auto& p : outs_) *p.ready = p.rng.chance(opt_.stall) ? 0 : 1;
      for (auto& m : mems_) drive_memory(m, cycle);
      for (auto& m : rws_) drive_rw(m, cycle);
      top.eval();
      check_ready_independence(top, cycle);
      for (auto& m : mems_) sample_memory(m, cycle);
      for (auto& m : rws_) sample_rw(m, cycle);

      // Sample the handshakes as the clock edge will see them.
      for (auto& p : outs_) check_output(p, cycle);
      for (auto& p : ins_) {
        if (p.presenting && *p.ready) {
          p.presenting = false;
          last_progress_ = cycle;
          ++p.next;
        }
      }
      tick();
      ++cycle;
      now_ = cycle;
      for (auto& q : probes_) q.sample();
      if (opt_.progress > 0 && cycle % opt_.progress == 0) report_progress(cycle);
      // A port waiting by policy is stuck only when the whole unit is; the error is
      // written after the drain, which may still bring its items (then counted late,
      // not as extra).
      // A unit with a quiet period (a whole subsystem) works on one port's items while
      // another waits: its memory moving is progress for every port, and a hang stops it.
      uint64_t memory_moved = 0;
      if (opt_.quiet > 0)
        for (const auto& m : rws_) memory_moved = std::max(memory_moved, m.last_activity);
      for (auto& p : outs_) {
        uint64_t since = p.may_starve ? std::max(p.last_transfer, last_progress_) : p.last_transfer;
        if (opt_.quiet > 0) since = std::max({since, last_progress_, memory_moved});
        if (!p.stuck && p.next < p.expected.size() && cycle - since > opt_.max_idle) {
          p.stuck = true;
          p.stuck_after = p.last_transfer;
        }
      }
      for (auto& m : rws_) {
        if (!m.stuck && !rw_done() && cycle - m.last_activity > opt_.max_idle) {
          error("memory port " + m.name + ": no request or beat for " +
                std::to_string(opt_.max_idle) + " clocks after cycle " +
                std::to_string(m.last_activity) + " with work left (" +
                std::to_string(m.outstanding()) + " bursts pending)");
          m.stuck = true;
        } else if (!m.stuck && rw_done() && cycle - m.last_activity > opt_.max_idle &&
                   !image_matches(m)) {
          error("memory port " + m.name + ": idle for " + std::to_string(opt_.max_idle) +
                " clocks after cycle " + std::to_string(m.last_activity) +
                " with every input taken and the memory short of the model's image");
          m.stuck = true;
        }
      }
    }
    cycles_ = cycle;
    if (opt_.progress > 0) report_progress(cycle);

    // Drain: nothing more may come out.
    for (auto& p : ins_) {
      *p.valid = 0;
      drive_junk(p);
    }
    for (uint64_t i = 0; i < opt_.drain && errors_.size() < opt_.max_errors; ++i) {
      for (auto& p : outs_) *p.ready = 1;
      for (auto& m : mems_) drive_memory(m, cycle + i);  // memory keeps answering
      for (auto& m : rws_) drive_rw(m, cycle + i);
      top.eval();
      for (auto& m : mems_) sample_memory(m, cycle + i);
      for (auto& m : rws_) {
        if (*m.b.req_valid) {
          error("memory port " + m.name + ": extra burst request after all inputs were served at cycle " +
                std::to_string(cycle + i));
        }
        sample_rw(m, cycle + i);
      }
      for (auto& p : outs_) {
        if (*p.valid && p.next < p.expected.size()) {
          // A port given up on: its items still count against the model.
          if (p.data() != p.expected[p.next]) {
            ++p.mismatches;
            error("port " + p.name + ": transaction " + std::to_string(p.next) + " at cycle " +
                  std::to_string(cycle + i) + ": got " + to_hex(p.data(), p.width) +
                  ", model expects " + to_hex(p.expected[p.next], p.width));
          }
          ++p.next;
          ++p.late;
        } else if (*p.valid) {
          ++p.extra;
          error("port " + p.name + ": extra transaction " + to_hex(p.data(), p.width) +
                " after all " + std::to_string(p.expected.size()) +
                " expected ones (duplicated?) at cycle " + std::to_string(cycle + i));
        }
      }
      tick();
    }
    for (const auto& p : outs_) {
      if (!p.stuck) continue;
      std::string e = "port " + p.name + ": stuck for " + std::to_string(opt_.max_idle) +
                      " clocks after cycle " + std::to_string(p.stuck_after) +
                      (p.may_starve ? " with no port of the unit moving" : "") + "; ";
      if (p.next < p.expected.size()) {
        e += std::to_string(p.expected.size() - p.next) + " of " +
             std::to_string(p.expected.size()) + " expected transactions never came (lost?)";
      } else {
        e += "its last " + std::to_string(p.late) + " transactions came only in the drain (late)";
      }
      error(e);
    }
#if VM_TRACE_FST
    if (fst) fst->close();
#endif
    top.final();
    for (auto& m : rws_) check_image(m);
    return report();
  }

 private:
  std::vector<Word> load(const std::string& port, int width) {
    std::vector<Word> items;
    const std::string path = opt_.vectors + "/" + port + ".vec";
    std::ifstream in(path);
    if (!in) {
      error("cannot open " + path);
      return items;
    }
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
      ++n;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.empty() || line[0] == '#') continue;
      Word w;
      if (!parse_hex(line, width, w)) {
        error(path + ":" + std::to_string(n) + ": bad " + std::to_string(width) + "-bit hex word");
        continue;
      }
      items.push_back(w);
    }
    return items;
  }

  void check_output(OutPort& p, uint64_t cycle) {
    const bool valid = *p.valid != 0;
    const Word data = valid || p.held ? p.data() : Word();
    if (p.held) {
      if (!valid) {
        error("port " + p.name + ": valid dropped while stalled at cycle " + std::to_string(cycle));
      } else if (data != p.held_data) {
        error("port " + p.name + ": data changed while stalled at cycle " +
              std::to_string(cycle) + ": " + to_hex(p.held_data, p.width) + " -> " +
              to_hex(data, p.width));
      }
    }
    const bool ready = *p.ready != 0;
    if (valid && ready) {
      if (p.next >= p.expected.size()) {
        ++p.extra;
        error("port " + p.name + ": extra transaction " + to_hex(data, p.width) +
              " (duplicated?) at cycle " + std::to_string(cycle));
      } else {
        if (data != p.expected[p.next]) {
          ++p.mismatches;
          error("port " + p.name + ": transaction " + std::to_string(p.next) + " at cycle " +
                std::to_string(cycle) + ": got " + to_hex(data, p.width) + ", model expects " +
                to_hex(p.expected[p.next], p.width));
        }
        if (p.next == 0) p.first_transfer = cycle;
        ++p.next;
        p.longest_wait = std::max(p.longest_wait, cycle - p.last_transfer);
        p.last_transfer = cycle;
        last_progress_ = cycle;
      }
    }
    p.held = valid && !ready;
    p.held_data = data;
  }

  // Beat `beat` of a burst at `addr`, with the words the vectors placed.
  static Word read_beat(const MemPort& m, uint64_t addr, uint32_t beat) {
    Word w = memory_beat(addr, beat, m.data_width);
    if (m.words.empty()) return w;
    const uint64_t first = addr + beat * static_cast<uint64_t>((m.data_width + 7) / 8);
    for (size_t i = 0; i < w.size(); ++i) {
      const auto it = m.words.find(first + 4 * i);
      if (it != m.words.end()) w[i] = it->second;
    }
    mask(w, m.data_width);
    return w;
  }

  // Memory, before the clock edge: ready for a request unless stalled; the head burst's
  // next beat offered once due, unless the bandwidth draw loses this beat slot.
  void drive_memory(MemPort& m, uint64_t cycle) {
    *m.req_ready = m.rng.chance(opt_.mem_stall) ? 0 : 1;
    if (!m.offering && !m.pending.empty() && m.pending.front().due <= cycle &&
        !m.rng.chance(opt_.mem_gap)) {
      m.offering = true;
      m.set_rsp(read_beat(m, m.pending.front().addr, m.beat));
    }
    *m.rsp_valid = m.offering ? 1 : 0;
  }

  // Memory, at the clock edge: take a request, retire a beat; check the request holds.
  void sample_memory(MemPort& m, uint64_t cycle) {
    const bool valid = *m.req_valid != 0;
    const Word addr = valid || m.req_held ? m.req_addr() : Word();
    if (m.req_held && (!valid || addr != m.req_held_addr)) {
      error("memory port " + m.name + ": request dropped or changed while stalled at cycle " +
            std::to_string(cycle));
    }
    const bool ready = *m.req_ready != 0;
    if (valid && ready) {
      const uint64_t jitter = opt_.mem_jitter ? m.rng.next() % (opt_.mem_jitter + 1) : 0;
      m.pending.push_back({word_u64(addr), cycle + 1 + opt_.mem_latency + jitter});
      ++m.requests;
    }
    m.req_held = valid && !ready;
    m.req_held_addr = addr;
    if (m.offering && *m.rsp_ready) {
      m.offering = false;
      ++m.beats_sent;
      if (++m.beat == m.beats) {
        m.beat = 0;
        m.pending.pop_front();
      }
    }
  }

  // Read/write memory, before the clock edge.
  void drive_rw(RwMem& m, uint64_t cycle) {
    *m.b.req_ready = m.rng.chance(opt_.mem_stall) ? 0 : 1;
    m.taking = false;
    if (!m.offering) {
      m.next = m.choose(cycle, opt_.mem_row_bits, opt_.mem_row_penalty);
      if (m.next != RwMem::Bus::kFree && !m.rng.chance(opt_.mem_gap)) {
        if (m.next == RwMem::Bus::kWrite) {
          m.taking = true;
        } else {
          const RwMem::Op& op = m.reads.front();
          m.offering = true;
          m.b.set_rdata(m.read_beat_at(op.addr + m.beat * m.beat_bytes(), op.seq));
        }
      }
    }
    *m.b.rdata_valid = m.offering ? 1 : 0;
    *m.b.wdata_ready = m.taking ? 1 : 0;
  }

  Word rw_request(const RwMem& m) const {
    Word w = m.b.req_addr();
    w.push_back(static_cast<uint32_t>(word_u64(m.b.req_len())));
    w.push_back(static_cast<uint32_t>(word_u64(m.b.req_write())));
    w.push_back(static_cast<uint32_t>(word_u64(m.b.req_id())));
    return w;
  }

  void beat_done(RwMem& m, uint64_t cycle) {
    RwMem::Op& op = m.current();
    m.last_activity = cycle;
    if (m.bus == RwMem::Bus::kFree) {
      m.bus = m.next;
      if (m.have_prev && op.id != m.prev_id && op.accepted <= m.prev_last &&
          m.start_due(op, opt_.mem_row_bits, opt_.mem_row_penalty) <= m.prev_last + 1) {
        const uint64_t idle = cycle - m.prev_last - 1;
        ++m.switches;
        m.switch_idle_total += idle;
        if (idle > m.switch_idle_max) m.switch_idle_max = idle;
      }
    }
    if (++m.beat == op.beats) {
      m.have_row = true;
      m.last_row = opt_.mem_row_bits ? (op.addr >> opt_.mem_row_bits) : 0;
      m.last_end = cycle;
      m.have_prev = true;
      m.prev_id = op.id;
      m.prev_last = cycle;
      m.beat = 0;
      if (m.bus == RwMem::Bus::kRead) m.reads.pop_front(); else m.writes.pop_front();
      m.bus = RwMem::Bus::kFree;
    }
  }

  // Read/write memory, at the clock edge.
  void sample_rw(RwMem& m, uint64_t cycle) {
    const bool valid = *m.b.req_valid != 0;
    const Word req = valid || m.req_held ? rw_request(m) : Word();
    if (m.req_held && (!valid || req != m.req_held_value)) {
      error("memory port " + m.name + ": request dropped or changed while stalled at cycle " +
            std::to_string(cycle));
    }
    if (valid && *m.b.req_ready) {
      RwMem::Op op;
      op.addr = word_u64(m.b.req_addr());
      op.beats = static_cast<uint32_t>(word_u64(m.b.req_len())) + 1;
      op.write = word_u64(m.b.req_write()) != 0;
      op.id = word_u64(m.b.req_id());
      op.accepted = cycle;
      uint64_t delay = 1;
      if (!op.write) {
        delay += opt_.mem_latency;
        if (opt_.mem_jitter) delay += m.rng.next() % (opt_.mem_jitter + 1);
      }
      op.due = cycle + delay;
      op.seq = m.next_seq++;
      (op.write ? m.writes : m.reads).push_back(op);
      auto& counts = m.by_id[op.id];
      counts[op.write ? 2 : 0] += 1;
      counts[op.write ? 3 : 1] += op.beats;
      ++m.requests;
      m.last_activity = cycle;
    }
    m.req_held = valid && !*m.b.req_ready;
    m.req_held_value = req;

    const bool wvalid = *m.b.wdata_valid != 0;
    const Word wd = wvalid || m.wdata_held ? m.b.wdata() : Word();
    if (m.wdata_held && (!wvalid || wd != m.wdata_held_value)) {
      error("memory port " + m.name + ": write data dropped or changed while stalled at cycle " +
            std::to_string(cycle));
    }
    m.wdata_held = wvalid && !m.taking;
    m.wdata_held_value = wd;
    if (m.taking && wvalid) {
      const RwMem::Op& op = m.writes.front();
      m.write_beat(op.addr + m.beat * m.beat_bytes(), op.seq, wd);
      ++m.write_beats;
      beat_done(m, cycle);
    } else if (m.offering && *m.b.rdata_ready) {
      m.offering = false;
      ++m.read_beats;
      beat_done(m, cycle);
    }
  }

  bool rw_done() const {
    for (const auto& p : ins_)
      if (p.next < p.items.size()) return false;
    for (const auto& m : rws_)
      if (!m.idle() || *m.b.req_valid) return false;
    return true;
  }

  void check_image(RwMem& m) {
    std::map<uint64_t, bool> listed;
    uint64_t reported = 0;
    for (const auto& e : m.expected_image) {
      listed[e.first] = true;
      const Word got = m.read_beat(e.first);
      if (got != e.second) {
        ++m.image_mismatches;
        if (reported++ < 10)
          error("memory " + m.name + ": at the end, the beat at 0x" + to_hex(Word{static_cast<uint32_t>(e.first)}, 32) +
                " is " + to_hex(got, m.data_width) + ", the model expects " + to_hex(e.second, m.data_width));
      }
    }
    for (const auto& w : m.image) {
      if (!listed.count(w.first)) {
        ++m.image_mismatches;
        if (reported++ < 10)
          error("memory " + m.name + ": the beat at 0x" + to_hex(Word{static_cast<uint32_t>(w.first)}, 32) +
                " was written, but the model writes nothing there");
      }
    }
  }

  // What the DUT offers: each output's valid and data, each memory request's valid and
  // address (where valid).
  std::vector<std::pair<bool, Word>> offers() const {
    std::vector<std::pair<bool, Word>> v;
    for (const auto& p : outs_) v.emplace_back(*p.valid != 0, *p.valid ? p.data() : Word());
    for (const auto& m : mems_) v.emplace_back(*m.req_valid != 0, *m.req_valid ? m.req_addr() : Word());
    for (const auto& m : rws_) {
      v.emplace_back(*m.b.req_valid != 0, *m.b.req_valid ? rw_request(m) : Word());
      v.emplace_back(*m.b.wdata_valid != 0, *m.b.wdata_valid ? m.b.wdata() : Word());
    }
    return v;
  }

  // valid and data are the sender's: flipping any ready must not change them this clock.
  template <class Top>
  void check_ready_independence(Top& top, uint64_t cycle) {
    if (comb_reported_) return;
    const auto seen = offers();
    for (auto& p : outs_) {
      const CData before = *p.ready;
      *p.ready = before ? 0 : 1;
      top.eval();
      const bool same = offers() == seen;
      *p.ready = before;
      top.eval();
      if (!same) {
        comb_reported_ = true;
        error("port " + p.name + ": an output's valid or data follows " + p.name +
              " ready combinationally at cycle " + std::to_string(cycle));
        return;
      }
    }
    for (auto& m : mems_) {
      const CData before = *m.req_ready;
      *m.req_ready = before ? 0 : 1;
      top.eval();
      const bool same = offers() == seen;
      *m.req_ready = before;
      top.eval();
      if (!same) {
        comb_reported_ = true;
        error("memory port " + m.name + ": a valid or data follows " + m.name +
              " request ready combinationally at cycle " + std::to_string(cycle));
        return;
      }
    }
    for (auto& m : rws_) {
      for (CData* r : {m.b.req_ready, m.b.wdata_ready}) {
        const CData before = *r;
        *r = before ? 0 : 1;
        top.eval();
        const bool same = offers() == seen;
        *r = before;
        top.eval();
        if (!same) {
          comb_reported_ = true;
          error("memory port " + m.name + ": a valid or data follows a " + m.name +
                " ready combinationally at cycle " + std::to_string(cycle));
          return;
        }
      }
    }
  }

  bool all_arrived() const {
    for (const auto& p : outs_)
      if (p.next < p.expected.size() && !p.stuck) return false;
    // A unit with a read/write memory is done when its writes have landed as well: the
    // memory idle and holding the image the model expects (a unit may still be working
    // on writes while its memory idles a moment).
    for (const auto& m : rws_)
      if (!m.stuck && !(rw_done() && now_ - m.last_activity >= opt_.quiet && image_matches(m)))
        return false;
    return true;
  }

  bool image_matches(const RwMem& m) const {
    for (const auto& e : m.expected_image)
      if (m.read_beat(e.first) != e.second) return false;
    return true;
  }

  void error(const std::string& e) { errors_.push_back(e); }

  // Output transactions checked so far against all expected, and the clock (--progress).
  void report_progress(uint64_t cycle) const {
    uint64_t done = 0, total = 0;
    for (const auto& p : outs_) {
      done += p.next;
      total += p.expected.size();
    }
    std::fprintf(stderr, "progress %llu %llu %llu\n", static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total), static_cast<unsigned long long>(cycle));
    std::fflush(stderr);
  }

  int report() {
    std::ostringstream j;
    const bool passed = errors_.empty();
    j << "{\"unit\":\"" << json_escape(unit_) << "\",\"seed\":" << opt_.seed
      << ",\"gap\":" << opt_.gap << ",\"stall\":" << opt_.stall << ",\"cycles\":" << cycles_
      << ",\"passed\":" << (passed ? "true" : "false") << ",\"ports\":[";
    bool first = true;
    for (const auto& p : ins_) {
      j << (first ? "" : ",") << "{\"name\":\"" << json_escape(p.name)
        << "\",\"dir\":\"in\",\"transactions\":" << p.next << ",\"expected\":" << p.items.size()
        << ",\"mismatches\":0,\"extra\":0}";
      first = false;
    }
    for (const auto& p : outs_) {
      const uint64_t done = p.next;
      j << (first ? "" : ",") << "{\"name\":\"" << json_escape(p.name)
        << "\",\"dir\":\"out\",\"transactions\":" << done << ",\"expected\":" << p.expected.size()
        << ",\"mismatches\":" << p.mismatches << ",\"extra\":" << p.extra
        << ",\"longest_wait\":" << p.longest_wait << ",\"last_transfer\":" << p.last_transfer
        << ",\"first_transfer\":" << p.first_transfer
        << ",\"may_starve\":" << (p.may_starve ? "true" : "false") << "}";
      first = false;
    }
    j << "],\"memory\":[";
    for (size_t i = 0; i < mems_.size(); ++i) {
      const auto& m = mems_[i];
      j << (i ? "," : "") << "{\"name\":\"" << json_escape(m.name) << "\",\"requests\":" << m.requests
        << ",\"beats\":" << m.beats_sent << ",\"outstanding\":" << m.pending.size() << "}";
    }
    for (size_t i = 0; i < rws_.size(); ++i) {
      const auto& m = rws_[i];
      j << (i || !mems_.empty() ? "," : "") << "{\"name\":\"" << json_escape(m.name)
        << "\",\"requests\":" << m.requests << ",\"beats\":" << (m.read_beats + m.write_beats)
        << ",\"outstanding\":" << m.outstanding() << ",\"read_beats\":" << m.read_beats
        << ",\"write_beats\":" << m.write_beats << ",\"switches\":" << m.switches
        << ",\"switch_idle_total\":" << m.switch_idle_total
        << ",\"switch_idle_max\":" << m.switch_idle_max
        << ",\"image_words\":" << m.expected_image.size()
        << ",\"image_mismatches\":" << m.image_mismatches << ",\"by_id\":[";
      bool first = true;
      for (const auto& e : m.by_id) {
        j << (first ? "" : ",") << "{\"id\":" << e.first << ",\"read_bursts\":" << e.second[0]
          << ",\"read_beats\":" << e.second[1] << ",\"write_bursts\":" << e.second[2]
          << ",\"write_beats\":" << e.second[3] << "}";
        first = false;
      }
      j << "]}";
    }
    j << "],\"probes\":[";
    for (size_t i = 0; i < probes_.size(); ++i) {
      const auto& q = probes_[i];
      j << (i ? "," : "") << "{\"name\":\"" << json_escape(q.name) << "\",\"states\":[";
      for (size_t k = 0; k < q.states.size(); ++k)
        j << (k ? "," : "") << "{\"name\":\"" << json_escape(q.states[k].second)
          << "\",\"clocks\":" << q.clocks[k] << "}";
      j << "],\"unnamed\":" << q.unnamed << "}";
    }
    j << "],\"errors\":[";
    for (size_t i = 0; i < errors_.size(); ++i)
      j << (i ? "," : "") << "\"" << json_escape(errors_[i]) << "\"";
    j << "]}\n";
    if (opt_.report.empty()) {
      std::fputs(j.str().c_str(), stdout);
    } else {
      std::ofstream out(opt_.report);
      out << j.str();
    }
    return passed ? 0 : 1;
  }

  std::string unit_;
  Options opt_;
  std::vector<InPort> ins_;
  std::vector<OutPort> outs_;
  std::vector<MemPort> mems_;
  std::vector<RwMem> rws_;
  std::vector<Probe> probes_;
  std::vector<std::string> errors_;
  uint64_t port_count_ = 0;
  bool comb_reported_ = false;
  uint64_t cycles_ = 0;
  uint64_t now_ = 0;  // the main loop's cycle
  uint64_t last_progress_ = 0;  // the last clock an item moved on any port
};

}  // namespace gpurtl
