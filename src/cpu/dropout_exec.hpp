// The CPU backend of dropout.
#pragma once

#include <cstdint>

#include "core/handle.hpp"
#include "ops/dropout_problem.hpp"

namespace anydnn::cpu {

// y = x * mask / (1 - p) with the mask of (seed, call) (p.p in (0, 1)), or
// the constant masks of p = 0 and p = 1; the mask goes to `mask`. Element
// e draws the stream's element first + e (DropoutArgs).
void execute_dropout_forward(const Handle &h, const ops::DropoutProblem &p, uint64_t seed, uint64_t call,
                             const void *x, void *y, void *mask, int64_t first = 0);
// dx = dy * mask / (1 - p).
void execute_dropout_backward(const Handle &h, const ops::DropoutProblem &p, const void *dy, void *dx,
                              const void *mask);

}  // namespace anydnn::cpu
