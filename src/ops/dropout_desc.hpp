// The dropout descriptor object and the layout of its states buffer.
#pragma once

#include <cstdint>

#include "anydnn/anydnn_ops.h"

namespace anydnn::ops {

// The caller's states buffer (kDropoutStatesSize bytes, any alignment: read
// and written with memcpy). The Philox key is the seed; the call counter is
// the high half of every counter of a forward call (anydnn_ops.h,
// docs/ARCHITECTURE.md), advanced by one per forward call.
struct DropoutStates {
    uint64_t magic;    // kDropoutMagic once anydnnSetDropoutDescriptor initialized it
    uint64_t seed;
    uint64_t counter;  // forward calls since initialization
    uint64_t check;    // seed ^ kDropoutMagic: catches a buffer that was overwritten
    uint64_t reserved[4];
};
constexpr uint64_t kDropoutMagic = 0x3174756f706f7244ull;  // "Dropout1"
constexpr std::size_t kDropoutStatesSize = sizeof(DropoutStates);
static_assert(kDropoutStatesSize == 64);

}  // namespace anydnn::ops

struct anydnnDropoutStruct {
    bool is_set = false;     // by anydnnSetDropoutDescriptor / Restore
    float p = 0;             // the drop probability
    void *states = nullptr;  // the attached states buffer, or NULL
};
