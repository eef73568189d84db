// The CPU backend of pooling: picks how a validated problem is vectorized
// and split over threads, and runs the handle's ISA kernels.
#pragma once

#include "core/handle.hpp"
#include "ops/pooling_problem.hpp"

namespace anydnn::cpu {

void execute_pooling_forward(const Handle &h, const ops::PoolingForwardProblem &p, const void *x, void *y);
// Allocates the backward pass's scratch, one ring of input rows or planes
// per thread (PoolingRing; 1 MiB at most unless one channel's ring is larger);
// std::bad_alloc when it cannot, which api_call turns into ALLOC_FAILED.
void execute_pooling_backward(const Handle &h, const ops::PoolingBackwardProblem &p, const void *dy, const void *x,
                              void *dx);

}  // namespace anydnn::cpu
