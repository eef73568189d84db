// The CPU backend of LRN and divisive normalization.
#pragma once

#include "core/handle.hpp"
#include "ops/lrn_problem.hpp"

namespace anydnn::cpu {

void execute_lrn_forward(const Handle &h, const ops::LrnForwardProblem &p, const void *x, void *y);
void execute_lrn_backward(const Handle &h, const ops::LrnBackwardProblem &p, const void *y, const void *dy,
                          const void *x, void *dx);
// Allocate a scratch of 3 planes per thread slot; std::bad_alloc when they
// cannot, which api_call turns into ALLOC_FAILED.
void execute_divnorm_forward(const Handle &h, const ops::DivNormProblem &p, const void *x, const void *means,
                             void *y);
void execute_divnorm_backward(const Handle &h, const ops::DivNormProblem &p, const void *x, const void *means,
                              const void *dy, void *dx, void *dmeans);

}  // namespace anydnn::cpu
