// The CPU backend of the tensor ops: builds the loops of a validated
// problem and runs the handle's ISA kernels.
#pragma once

#include "core/handle.hpp"
#include "ops/tensor_ops_problem.hpp"

namespace anydnn::cpu {

void execute_transform(const Handle &h, const ops::TransformProblem &p, const void *x, void *y);
void execute_fill(const Handle &h, const ops::FillProblem &p, void *y);
void execute_op_tensor(const Handle &h, const ops::OpTensorProblem &p, const void *a, const void *b, void *c);

}  // namespace anydnn::cpu
