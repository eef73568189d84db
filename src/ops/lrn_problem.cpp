#include "ops/lrn_problem.hpp"

#include <cmath>

#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

namespace {

LrnParams params_of(const anydnnLRNStruct &d, int spatial) {
    LrnParams p;
    p.n = static_cast<int>(d.n);
    p.before = (p.n - 1) / 2;
    p.after = p.n - 1 - p.before;
    p.alpha_n = d.alpha / std::pow(static_cast<double>(d.n), spatial);
    p.beta = d.beta;
    p.k = d.k;
    return p;
}

// BAD_PARAM unless every stride of t is positive (a zero stride would make
// two elements one, and the window sums would read a written output).
Status check_strides(const TensorLayout &t, const char *arg) {
    for (int i = 0; i < t.nd; ++i)
        if (t.strides[i] < 1 && t.dims[i] > 1)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s stride %d is %lld: strides must be positive", arg, i,
                        static_cast<long long>(t.strides[i]));
    return kSuccess;
}

Status check_operands(const TensorLayout *const *t, const char *const *names, int nops) {
    ANYDNN_TRY(check_floating(*t[0], names[0]));
    if (t[0]->nd < 3)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s has %d dimensions, at least 3 are needed", names[0], t[0]->nd);
    for (int k = 0; k < nops; ++k) {
        if (k > 0) {
            ANYDNN_TRY(check_same_dims(*t[k], names[k], *t[0], names[0]));
            ANYDNN_TRY(check_same_type(*t[k], names[k], *t[0], names[0]));
        }
        ANYDNN_TRY(check_strides(*t[k], names[k]));
    }
    return kSuccess;
}

// The grid of tensors t[0..nops) (same dimensions): N, C, and the pixel
// dimensions, merged when `merge` and contiguous in every operand.
LrnGrid make_grid(const TensorLayout *const *t, int nops, bool merge) {
    LrnGrid g;
    const TensorLayout &a = *t[0];
    g.dt = a.dt;
    g.n = a.dims[0];
    g.c = a.dims[1];
    g.nops = nops;
    for (int k = 0; k < nops; ++k) {
        g.sn[k] = t[k]->strides[0];
        g.sc[k] = t[k]->strides[1];
    }
    g.nd = 0;
    for (int i = 2; i < a.nd; ++i) {
        if (merge && a.dims[i] == 1) continue;
        bool joins = merge && g.nd > 0;
        for (int k = 0; k < nops && joins; ++k)
            joins = g.s[k][g.nd - 1] == t[k]->strides[i] * a.dims[i];
        if (joins) {
            g.dims[g.nd - 1] *= a.dims[i];
            for (int k = 0; k < nops; ++k) g.s[k][g.nd - 1] = t[k]->strides[i];
        } else {
            g.dims[g.nd] = a.dims[i];
            for (int k = 0; k < nops; ++k) g.s[k][g.nd] = t[k]->strides[i];
            ++g.nd;
        }
    }
    if (g.nd == 0) {  // 1x1 pixels: one pixel dimension of 1
        g.nd = 1;
        g.dims[0] = 1;
        for (int k = 0; k < nops; ++k) g.s[k][0] = 1;
    }
    return g;
}

}  // namespace

int64_t LrnGrid::pixels() const {
    int64_t p = 1;
    for (int i = 0; i < nd; ++i) p *= dims[i];
    return p;
}

std::string LrnGrid::to_string() const {
    std::string s = "n=" + std::to_string(n) + " c=" + std::to_string(c) + " pixels=";
    for (int i = 0; i < nd; ++i) {
        if (i > 0) s += "x";
        s += std::to_string(dims[i]);
    }
    return s;
}

std::string LrnParams::to_string() const {
    return "lrnN=" + std::to_string(n) + " alpha/n=" + std::to_string(alpha_n) + " beta=" + std::to_string(beta) +
           " k=" + std::to_string(k);
}

std::string LrnForwardProblem::to_string() const {
    return "lrn_fwd " + lrn.to_string() + " x=" + x.to_string() + " y=" + y.to_string() +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

std::string LrnBackwardProblem::to_string() const {
    return "lrn_bwd " + lrn.to_string() + " y=" + y.to_string() + " dy=" + dy.to_string() + " x=" + x.to_string() +
           " dx=" + dx.to_string() + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

std::string DivNormProblem::to_string() const {
    return "divnorm " + lrn.to_string() + " x=" + x.to_string() + " y=" + y.to_string() +
           (has_means ? " means" : "") + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

Status lrn_desc_arg(const anydnnLRNStruct *desc, const anydnnLRNStruct **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "normDesc is NULL");
    *out = desc;
    return kSuccess;
}

Status set_lrn(anydnnLRNStruct *desc, unsigned n, double alpha, double beta, double k) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "normDesc is NULL");
    if (n < ANYDNN_LRN_MIN_N || n > ANYDNN_LRN_MAX_N)
        return fail(ANYDNN_STATUS_BAD_PARAM, "lrnN is %u, outside [%d, %d]", n, ANYDNN_LRN_MIN_N, ANYDNN_LRN_MAX_N);
    if (!std::isfinite(alpha)) return fail(ANYDNN_STATUS_BAD_PARAM, "lrnAlpha is %g, not finite", alpha);
    // The negated comparisons also reject NaN.
    if (!(k >= ANYDNN_LRN_MIN_K) || !std::isfinite(k))
        return fail(ANYDNN_STATUS_BAD_PARAM, "lrnK is %g, below ANYDNN_LRN_MIN_K (%g) or not finite", k,
                    ANYDNN_LRN_MIN_K);
    if (!(beta >= ANYDNN_LRN_MIN_BETA) || !std::isfinite(beta))
        return fail(ANYDNN_STATUS_BAD_PARAM, "lrnBeta is %g, below ANYDNN_LRN_MIN_BETA (%g) or not finite", beta,
                    ANYDNN_LRN_MIN_BETA);
    desc->n = n;
    desc->alpha = alpha;
    desc->beta = beta;
    desc->k = k;
    return kSuccess;
}

Status make_lrn_forward_problem(const anydnnLRNStruct &d, const TensorLayout &x, const TensorLayout &y,
                                LrnForwardProblem *p) {
    const TensorLayout *t[] = {&x, &y};
    const char *names[] = {"xDesc", "yDesc"};
    ANYDNN_TRY(check_operands(t, names, 2));
    *p = LrnForwardProblem{};
    p->lrn = params_of(d, 1);
    p->grid = make_grid(t, 2, true);
    p->x = x;
    p->y = y;
    return kSuccess;
}

Status make_lrn_backward_problem(const anydnnLRNStruct &d, const TensorLayout &y, const TensorLayout &dy,
                                 const TensorLayout &x, const TensorLayout &dx, LrnBackwardProblem *p) {
    const TensorLayout *t[] = {&x, &y, &dy, &dx};
    const char *names[] = {"xDesc", "yDesc", "dyDesc", "dxDesc"};
    ANYDNN_TRY(check_operands(t, names, 4));
    *p = LrnBackwardProblem{};
    p->lrn = params_of(d, 1);
    p->grid = make_grid(t, 4, true);
    p->y = y;
    p->dy = dy;
    p->x = x;
    p->dx = dx;
    return kSuccess;
}

Status make_divnorm_problem(const anydnnLRNStruct &d, const TensorLayout &x, const TensorLayout &y,
                            DivNormProblem *p) {
    const TensorLayout *t[] = {&x, &y};
    const char *names[] = {"xDesc", "yDesc"};
    ANYDNN_TRY(check_operands(t, names, 2));
    if (x.nd != 4 && x.nd != 5)
        return fail(ANYDNN_STATUS_BAD_PARAM, "xDesc has %d dimensions: divisive normalization takes 4 or 5", x.nd);
    *p = DivNormProblem{};
    p->lrn = params_of(d, x.nd - 2);
    // Operands 0, 1 (means), 2 (dy) have x's layout; 3 (and dMeans) y's.
    const TensorLayout *ops4[] = {&x, &x, &x, &y};
    p->grid = make_grid(ops4, 4, false);
    if (x.nd == 4) {  // d = 1 in front
        p->grid.nd = 3;
        for (int k = 0; k < 4; ++k) {
            p->grid.s[k][2] = p->grid.s[k][1];
            p->grid.s[k][1] = p->grid.s[k][0];
            p->grid.s[k][0] = 0;
        }
        p->grid.dims[2] = p->grid.dims[1];
        p->grid.dims[1] = p->grid.dims[0];
        p->grid.dims[0] = 1;
    }
    p->x = x;
    p->y = y;
    return kSuccess;
}

}  // namespace anydnn::ops
