// The CPU backend of the activations: builds the loops of a validated
// problem and runs the handle's ISA kernels.
#pragma once

#include "core/handle.hpp"
#include "ops/activation_problem.hpp"

namespace anydnn::cpu {

void execute_activation_forward(const Handle &h, const ops::ActivationForwardProblem &p, const void *x, void *y);
void execute_activation_backward(const Handle &h, const ops::ActivationBackwardProblem &p, const void *y,
                                 const void *dy, const void *x, void *dx);

}  // namespace anydnn::cpu
