// The CPU backend of softmax: splits a validated problem into the loops of
// one softmax and of the softmaxes, and runs the handle's ISA kernels.
#pragma once

#include "core/handle.hpp"
#include "ops/softmax_problem.hpp"

namespace anydnn::cpu {

void execute_softmax_forward(const Handle &h, const ops::SoftmaxForwardProblem &p, const void *x, void *y);
void execute_softmax_backward(const Handle &h, const ops::SoftmaxBackwardProblem &p, const void *y, const void *dy,
                              void *dx);

}  // namespace anydnn::cpu
