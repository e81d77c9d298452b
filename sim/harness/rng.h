// SplitMix64 streams, the same as src/rng.rs: a seed reproduces a run exactly, and the
// Rust cycle model replays the very gaps and stalls the harness drew.
#pragma once
#include <cstdint>

namespace gpurtl {

constexpr uint64_t kStreamData = 0;
constexpr uint64_t kStreamPortBase = 16;
// Junk driven on data lines while valid is low (never replayed by the model).
constexpr uint64_t kStreamJunk = 1000;

class Rng {
 public:
  Rng() : state_(0) {}
  static Rng stream(uint64_t seed, uint64_t stream) {
    Rng mix;
    mix.state_ = seed ^ ((stream + 1) * 0xD1B54A32D192ED03ull);
    Rng r;
    r.state_ = mix.next();
    return r;
  }
  static Rng with_state(uint64_t state) {
    Rng r;
    r.state_ = state;
    return r;
  }
  uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  bool chance(double p) { return unit() < p; }

 private:
  uint64_t state_;
};

// The word the memory model holds at byte address `addr` (src/rng.rs memory_word).
inline uint32_t memory_word(uint64_t addr) {
  return static_cast<uint32_t>(Rng::with_state(addr >> 2).next());
}

}  // namespace gpurtl
