#include "cpu/reduce_exec.hpp"

#include "cpu/reduce.hpp"

namespace anydnn::cpu {

void execute_reduce(const Handle &h, const ops::ReduceProblem &p, const void *a, void *c, uint32_t *indices) {
    const int nd = p.a.nd;
    // Row-major strides of the indices output (over C's dimensions) and of the
    // flattened index within the reduced dimensions (over those alone).
    int64_t c_index[kMaxDims], reduced_index[kMaxDims];
    int64_t cs = 1, rs = 1;
    for (int i = nd - 1; i >= 0; --i) {
        c_index[i] = cs;
        cs *= p.c.dims[i];
        const bool reduced = p.c.dims[i] != p.a.dims[i];
        reduced_index[i] = reduced ? rs : 0;
        if (reduced) rs *= p.a.dims[i];
    }
    int64_t kd[kMaxDims], ka[kMaxDims], kc[kMaxDims], ki[kMaxDims];
    int64_t rd[kMaxDims], ra[kMaxDims], ri[kMaxDims];
    int nk = 0, nr = 0;
    for (int i = 0; i < nd; ++i) {
        if (p.c.dims[i] != p.a.dims[i]) {
            rd[nr] = p.a.dims[i];
            ra[nr] = p.a.strides[i];
            ri[nr] = reduced_index[i];
            ++nr;
        } else {
            kd[nk] = p.c.dims[i];
            ka[nk] = p.a.strides[i];
            kc[nk] = p.c.strides[i];
            ki[nk] = c_index[i];
            ++nk;
        }
    }
    const int64_t *kept_strides[] = {ka, kc, ki};
    const int64_t *reduced_strides[] = {ra, ri};
    const ReduceArgs args{make_strided_loop(nk, kd, 3, kept_strides),
                          make_strided_loop(nr, rd, 2, reduced_strides),
                          p.c.dt,
                          p.op,
                          p.propagate_nan,
                          a,
                          c,
                          p.indices ? indices : nullptr,
                          p.alpha,
                          p.beta};
    const ReduceKernels &k = reduce_kernels(h.isa);
    const ExecContext ctx{h.threads()};
    // Best first: the reduced set contiguous in A (rows), else the kept
    // elements contiguous in A (columns), else rows with strided loads.
    const bool rows_contiguous = args.reduced.total() > 1 && args.reduced.inner_stride(0) == 1;
    const bool columns_contiguous = args.kept.total() > 1 && args.kept.inner_stride(0) == 1;
    if (!rows_contiguous && columns_contiguous) k.columns(ctx, args);
    else k.rows(ctx, args);
}

}  // namespace anydnn::cpu
