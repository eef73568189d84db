#include "ops/dropout_problem.hpp"

#include <cstring>

#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

std::string DropoutProblem::to_string() const {
    return "dropout p=" + std::to_string(p) + " in=" + in.to_string() + " out=" + out.to_string();
}

Status dropout_desc_arg(const anydnnDropoutStruct *desc, const anydnnDropoutStruct **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "dropoutDesc is NULL");
    if (!desc->is_set)
        return fail(ANYDNN_STATUS_BAD_PARAM, "dropoutDesc was never set (anydnnSetDropoutDescriptor)");
    *out = desc;
    return kSuccess;
}

Status check_dropout_p(float p) {
    if (!(p >= 0.0f && p <= 1.0f))  // also NaN
        return fail(ANYDNN_STATUS_BAD_PARAM, "dropout is %g, outside [0, 1]", static_cast<double>(p));
    return kSuccess;
}

Status read_dropout_states(const void *states, DropoutStates *out) {
    std::memcpy(out, states, sizeof(*out));
    if (out->magic != kDropoutMagic || out->check != (out->seed ^ kDropoutMagic))
        return fail(ANYDNN_STATUS_BAD_PARAM,
                    "states were not initialized by anydnnSetDropoutDescriptor (or were overwritten)");
    return kSuccess;
}

Status make_dropout_problem(const anydnnDropoutStruct &d, const TensorLayout &in, const char *in_arg,
                            const TensorLayout &out, const char *out_arg, std::size_t reserve_bytes,
                            DropoutProblem *p) {
    ANYDNN_TRY(check_floating(in, in_arg));
    ANYDNN_TRY(check_same_dims(out, out_arg, in, in_arg));
    ANYDNN_TRY(check_same_type(out, out_arg, in, in_arg));
    for (const TensorLayout *t : {&in, &out})
        for (int i = 0; i < t->nd; ++i)
            if (t->strides[i] < 1 && t->dims[i] > 1)
                return fail(ANYDNN_STATUS_BAD_PARAM, "%s stride %d is %lld: strides must be positive",
                            t == &in ? in_arg : out_arg, i, static_cast<long long>(t->strides[i]));
    const std::size_t need = dropout_reserve_size(in);
    if (reserve_bytes < need)
        return fail(ANYDNN_STATUS_BAD_PARAM, "reserveSpaceSizeInBytes is %zu, %zu needed (one byte per element)",
                    reserve_bytes, need);
    *p = DropoutProblem{};
    p->dt = in.dt;
    p->p = d.p;
    p->in = in;
    p->out = out;
    p->elements = in.elements();
    p->nd = 0;
    for (int i = 0; i < in.nd; ++i) {
        if (in.dims[i] == 1) continue;
        if (p->nd > 0 && p->in_strides[p->nd - 1] == in.strides[i] * in.dims[i] &&
            p->out_strides[p->nd - 1] == out.strides[i] * in.dims[i]) {
            p->dims[p->nd - 1] *= in.dims[i];
            p->in_strides[p->nd - 1] = in.strides[i];
            p->out_strides[p->nd - 1] = out.strides[i];
        } else {
            p->dims[p->nd] = in.dims[i];
            p->in_strides[p->nd] = in.strides[i];
            p->out_strides[p->nd] = out.strides[i];
            ++p->nd;
        }
    }
    if (p->nd == 0) {
        p->nd = 1;
        p->dims[0] = 1;
        p->in_strides[0] = p->out_strides[0] = 1;
    }
    return kSuccess;
}

}  // namespace anydnn::ops
