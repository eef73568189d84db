// The CPU backend of ReduceTensor: builds the loops of a validated problem,
// picks the kernel and runs it on the handle's ISA level.
#pragma once

#include <cstdint>

#include "core/handle.hpp"
#include "ops/reduce_problem.hpp"

namespace anydnn::cpu {

// indices: p.indices_bytes() writable bytes when p.indices, else unused.
void execute_reduce(const Handle &h, const ops::ReduceProblem &p, const void *a, void *c, uint32_t *indices);

}  // namespace anydnn::cpu
