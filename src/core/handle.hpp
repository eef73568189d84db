// The handle: the device, the CPU ISA level and thread count its calls use.
#pragma once

#include "anydnn/anydnn_core.h"
#include "core/isa.hpp"
#include "core/status.hpp"

struct anydnnContext {
    anydnnDevice_t device = ANYDNN_DEVICE_CPU;
    int ordinal = 0;
    anydnnStream_t stream = nullptr;
    anydnn::Isa isa = anydnn::Isa::generic;  // fixed at creation (ANYDNN_MAX_ISA)
    int num_threads = 0;                     // 0: default_threads
    int default_threads = 1;                 // ANYDNN_NUM_THREADS, else OpenMP's default

    int threads() const { return num_threads > 0 ? num_threads : default_threads; }
};

namespace anydnn {

using Handle = anydnnContext;

// BAD_PARAM when handle is NULL.
Status handle_arg(const anydnnContext *handle, const Handle **out);
Status create_handle(anydnnContext **out, anydnnDevice_t device, int ordinal);

}  // namespace anydnn
