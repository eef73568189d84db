#include "cpu/normalization_exec.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/dtype.hpp"
#include "cpu/normalization.hpp"

namespace anydnn::cpu {

namespace {

using ops::NormKind;
using ops::NormProblem;

constexpr int64_t kChunkGrain = 32768;               // elements per reduction chunk, at least
constexpr int64_t kChunkPerKey = 64;                 // and per group it sums, so that its partial sums cost little
constexpr int64_t kMaxChunks = 64;                   // chunks per reduction, at most
constexpr int64_t kPartialBudget = int64_t{8} << 20;  // partial sums (doubles) per reduction, at most

// The internal layout of the groups: packed over the dimensions the groups
// keep, in x's memory order (outermost = largest stride in x), so that along
// x's innermost run the keys step by 0 or 1 (src/cpu/normalization.hpp).
// The mask in the reserve space is packed the same way over every dimension.
struct Layout {
    int64_t x[ops::kNormMaxLogical];
    int64_t stat[ops::kNormMaxLogical], param[ops::kNormMaxLogical], mask[ops::kNormMaxLogical];
};

Layout make_layout(const NormProblem &p) {
    Layout L{};
    ops::norm_logical_strides(p, p.x, L.x);
    int order[ops::kNormMaxLogical];
    for (int i = 0; i < p.nl; ++i) order[i] = i;
    std::stable_sort(order, order + p.nl, [&](int a, int b) { return L.x[a] > L.x[b]; });
    int64_t rs = 1, rp = 1, rm = 1;
    for (int j = p.nl - 1; j >= 0; --j) {
        const int d = order[j];
        L.stat[d] = p.stat_dim[d] ? rs : 0;
        if (p.stat_dim[d]) rs *= p.ldims[d];
        L.param[d] = p.param_dim[d] ? rp : 0;
        if (p.param_dim[d]) rp *= p.ldims[d];
        L.mask[d] = rm;
        rm *= p.ldims[d];
    }
    return L;
}

// A range of the statistics groups along the one logical dimension that
// holds them (BN's channels): the groups [first, first + count) and the
// elements of x that belong to them. dim < 0: all of them.
struct GroupSlice {
    int dim = -1;
    int64_t first = 0, count = 0;
};

// The walk over every element of x (of the slice's groups) with the given
// operands (NULL: absent). The slice's first element of data operand k is
// offset[k] elements (the mask: bytes) past its base; its groups' keys count
// from 0.
StridedLoop make_loop(const NormProblem &p, const Layout &L, const TensorLayout *out, const TensorLayout *in2,
                      const TensorLayout *dz, bool mask, const GroupSlice &slice = {},
                      int64_t *offset = nullptr) {
    int64_t s[kNormOperands][ops::kNormMaxLogical] = {};
    std::copy(L.x, L.x + p.nl, s[kNormX]);
    if (out != nullptr) ops::norm_logical_strides(p, *out, s[kNormOut]);
    if (in2 != nullptr) ops::norm_logical_strides(p, *in2, s[kNormIn2]);
    if (dz != nullptr) ops::norm_logical_strides(p, *dz, s[kNormDz]);
    if (mask) std::copy(L.mask, L.mask + p.nl, s[kNormMask]);
    std::copy(L.stat, L.stat + p.nl, s[kNormStat]);
    std::copy(L.param, L.param + p.nl, s[kNormParam]);
    const int64_t *ptrs[kNormOperands];
    for (int k = 0; k < kNormOperands; ++k) ptrs[k] = s[k];
    int64_t dims[ops::kNormMaxLogical];
    std::copy(p.ldims, p.ldims + p.nl, dims);
    if (slice.dim >= 0) dims[slice.dim] = slice.count;
    if (offset != nullptr)
        for (int k = 0; k < kNormOperands; ++k) offset[k] = slice.dim >= 0 ? slice.first * s[k][slice.dim] : 0;
    return make_strided_loop(p.nl, dims, kNormOperands, ptrs);
}

// p + elements of type dt (nullptr stays nullptr).
template <class P>
P *advance(P *p, int64_t elements, anydnnDataType_t dt) {
    using Byte = std::conditional_t<std::is_const_v<P>, const char, char>;
    return p == nullptr ? p : reinterpret_cast<P *>(reinterpret_cast<Byte *>(p) + elements * int64_t(dtype_size(dt)));
}

constexpr int64_t kShortRun = 512;  // innermost runs below this split by rows (NormArgs::by_rows)

// The work unit of a's loop (NormArgs::by_rows), and the chunks of its
// reductions: a fixed function of the shape, never of the thread count.
// Rows when they are short (for_each_run's per-run setup would cost more
// than the run) or their statistics key moves along them (NHWC per channel,
// whose sums take several rows at a time).
void plan_units(NormArgs &a, int64_t keys) {
    const StridedLoop &L = a.loop;
    a.by_rows = L.nd > 1 && (L.inner() < kShortRun || L.inner_stride(kNormStat) == 1);
    const int64_t units = a.by_rows ? L.total() / L.inner() : L.total();
    int64_t c = L.total() / std::max(kChunkGrain, kChunkPerKey * keys);
    c = c < 1 ? 1 : c > kMaxChunks ? kMaxChunks : c;
    const int64_t fit = kPartialBudget / (2 * keys);
    c = c > fit ? (fit < 1 ? 1 : fit) : c;
    a.chunks = c > units ? units : c;
}

double read_small(const void *base, anydnnDataType_t dt, int64_t off) {
    return dt == ANYDNN_DATA_DOUBLE ? static_cast<const double *>(base)[off]
                                    : static_cast<double>(static_cast<const float *>(base)[off]);
}
void write_small(void *base, anydnnDataType_t dt, int64_t off, double v) {
    if (dt == ANYDNN_DATA_DOUBLE) static_cast<double *>(base)[off] = v;
    else static_cast<float *>(base)[off] = static_cast<float>(v);
}

// fn(user offset, internal index) for every statistics (param = false) or
// parameter group.
template <class Fn>
void for_each_group(const NormProblem &p, const Layout &L, bool param, Fn &&fn) {
    const bool *keep = param ? p.param_dim : p.stat_dim;
    const int64_t *internal = param ? L.param : L.stat;
    int64_t user[ops::kNormMaxLogical];
    ops::norm_small_strides(p, param ? p.param : p.stat, param, user);
    const int64_t count = param ? p.nparams : p.nstats;
    // A user tensor packed in the internal order (a layer norm's scale):
    // each group's offset is its index, without the coordinates' walk (a
    // tenth of a 512 x 768 layer norm's time).
    bool flat = true;
    for (int d = 0; d < p.nl; ++d) flat = flat && (!keep[d] || p.ldims[d] == 1 || user[d] == internal[d]);
    if (flat) {
        for (int64_t k = 0; k < count; ++k) fn(k, k);
        return;
    }
    int64_t coord[ops::kNormMaxLogical] = {};
    for (int64_t k = 0; k < count; ++k) {
        int64_t u = 0, i = 0;
        for (int d = 0; d < p.nl; ++d) {
            u += coord[d] * user[d];
            i += coord[d] * internal[d];
        }
        fn(u, i);
        for (int d = p.nl - 1; d >= 0; --d) {
            if (!keep[d]) continue;
            if (++coord[d] < p.ldims[d]) break;
            coord[d] = 0;
        }
    }
}

std::vector<double> gather(const NormProblem &p, const Layout &L, bool param, const void *buf) {
    std::vector<double> v(param ? p.nparams : p.nstats);
    for_each_group(p, L, param, [&](int64_t u, int64_t i) { v[i] = read_small(buf, p.pdt, u); });
    return v;
}

// buf[group] = value(internal index, old value); old is read only when
// `blend` (so uninitialized outputs are never read).
template <class Fn>
void scatter(const NormProblem &p, const Layout &L, bool param, void *buf, bool blend, Fn &&value) {
    for_each_group(p, L, param, [&](int64_t u, int64_t i) {
        write_small(buf, p.pdt, u, value(i, blend ? read_small(buf, p.pdt, u) : 0.0));
    });
}

NormArgs base_args(const NormProblem &p) {
    NormArgs a{};
    a.dt = p.dt;
    a.nstats = p.nstats;
    a.nparams = p.nparams;
    a.elements = 1;
    for (int d = 0; d < p.nl; ++d) a.elements *= p.ldims[d];
    return a;
}

struct Stats {
    std::vector<double> mean, var, inv;
};

std::vector<double> inverse_std(const std::vector<double> &var, double epsilon) {
    std::vector<double> inv(var.size());
    for (size_t i = 0; i < var.size(); ++i) inv[i] = 1.0 / std::sqrt(var[i] + epsilon);
    return inv;
}

// The statistics of x's groups: sums of x and x^2 in double (float data:
// shifted blocks in float first), per chunk, the chunks added in order.
// (Of a slice: its groups' statistics, indexed from 0.) threads: 0 for the
// handle's.
Stats batch_stats(const Handle &h, const NormProblem &p, const Layout &L, const void *x,
                  const GroupSlice &slice = {}, int threads = 0) {
    NormArgs a = base_args(p);
    int64_t off[kNormOperands];
    a.loop = make_loop(p, L, nullptr, nullptr, nullptr, false, slice, off);
    a.x = advance(x, off[kNormX], p.dt);
    const int64_t nstats = slice.dim >= 0 ? slice.count : p.nstats;
    a.nstats = a.nparams = nstats;
    plan_units(a, nstats);
    std::vector<double> partial(a.chunks * 2 * nstats);
    a.stat_partial = partial.data();
    normalization_kernels(h.isa).stats(ExecContext{threads > 0 ? threads : h.threads()}, a);
    Stats s;
    s.mean.assign(nstats, 0.0);
    s.var.assign(nstats, 0.0);
    const bool rms = p.spec.kind == NormKind::rms;
    // Chunk by chunk, so that the partial arrays are read in order.
    std::vector<double> sum(nstats), sq(nstats);
    for (int64_t b = 0; b < a.chunks; ++b)
        for (int64_t g = 0; g < nstats; ++g) {
            sum[g] += partial[b * 2 * nstats + g];
            sq[g] += partial[b * 2 * nstats + nstats + g];
        }
    for (int64_t g = 0; g < nstats; ++g) {
        const double mean = rms ? 0.0 : sum[g] / p.m, var = sq[g] / p.m - mean * mean;
        s.mean[g] = mean;
        s.var[g] = var > 0 ? var : 0.0;  // rounding can make it slightly negative
    }
    s.inv = inverse_std(s.var, p.epsilon);
    return s;
}

// The backward in float (NormArgs::wide) needs groups of at least this
// many elements: with fewer, dx is mostly cancellation (m = 2: zero but for
// epsilon), which float's rounding of the terms would show.
constexpr int64_t kFloatMinGroup = 16;

// A group array in the elementwise passes' compute type (NormArgs::wide).
class ComputeArray {
public:
    ComputeArray(bool wide, const std::vector<double> &v) : wide_(wide), d_(wide ? v : std::vector<double>{}) {
        if (!wide) f_.assign(v.begin(), v.end());
    }
    const void *data() const { return wide_ ? static_cast<const void *>(d_.data()) : f_.data(); }

private:
    bool wide_;
    std::vector<double> d_;
    std::vector<float> f_;
};

// Whether the elementwise passes compute in double (NormArgs::wide). 16-bit
// data never do: their own rounding is far coarser than float's.
bool wide_compute(const NormProblem &p, const std::vector<double> &mean, const std::vector<double> &inv,
                  bool backward) {
    if (p.dt != ANYDNN_DATA_FLOAT) return p.dt == ANYDNN_DATA_DOUBLE;
    if (backward && p.m < kFloatMinGroup) return true;
    for (size_t g = 0; g < mean.size(); ++g)
        if (std::abs(mean[g]) * inv[g] > kFloatMeanRatio) return true;
    return false;
}

// Whether the parameters fold into the per-statistics-group coefficients
// (NormArgs::ca): where the groups coincide (BN), their internal indices do
// too (make_layout).
bool folds(const NormProblem &p) { return std::equal(p.stat_dim, p.stat_dim + p.nl, p.param_dim); }

// (Of a slice: mean and inv are its groups', which are then the parameter
// groups too: blocking() takes only problems where they coincide.)
void run_forward(const Handle &h, const NormProblem &p, const Layout &L, const NormBuffers &b,
                 const std::vector<double> &mean, const std::vector<double> &inv, unsigned char *mask,
                 const GroupSlice &slice = {}, int threads = 0) {
    const std::vector<double> scale = gather(p, L, true, b.scale), bias = gather(p, L, true, b.bias);
    const bool fold = folds(p), wide = wide_compute(p, mean, inv, false);
    const int64_t nstats = int64_t(mean.size()), first = slice.dim >= 0 ? slice.first : 0;
    std::vector<double> ca(nstats), cb(nstats);  // y = x * ca + cb, then times scale plus bias
    for (int64_t g = 0; g < nstats; ++g) {
        ca[g] = fold ? inv[g] * scale[first + g] : inv[g];
        cb[g] = fold ? bias[first + g] - mean[g] * ca[g] : -mean[g] * inv[g];
    }
    const ComputeArray a_ca(wide, ca), a_cb(wide, cb), a_scale(wide, fold ? std::vector<double>{} : scale),
        a_bias(wide, fold ? std::vector<double>{} : bias);
    NormArgs a = base_args(p);
    int64_t off[kNormOperands];
    a.loop = make_loop(p, L, &p.y, p.has_z ? &p.z : nullptr, nullptr, mask != nullptr, slice, off);
    if (slice.dim >= 0) a.nstats = a.nparams = nstats;
    a.x = advance(b.x, off[kNormX], p.dt);
    a.out = advance(b.y, off[kNormOut], p.dt);
    a.in2 = p.has_z ? advance(b.z, off[kNormIn2], p.dt) : nullptr;
    a.add = p.spec.add;
    a.relu = p.spec.relu;
    a.mask = mask == nullptr ? nullptr : mask + off[kNormMask];
    a.ca = a_ca.data();
    a.cb = a_cb.data();
    a.cscale = fold ? nullptr : a_scale.data();
    a.cbias = fold ? nullptr : a_bias.data();
    a.wide = wide;
    a.alpha = p.alpha;
    a.beta = p.beta;
    plan_units(a, 1);
    normalization_kernels(h.isa).forward(ExecContext{threads > 0 ? threads : h.threads()}, a);
}

// A statistics group's bytes, at most, that forward_groups and grad_groups
// take whole: half of a 512 KiB L2, so that a row stays there from its sums
// to its outputs.
constexpr int64_t kGroupRowBytes = int64_t{256} << 10;
// And groups, at least: the threads take whole rows, and too few would
// leave some of them idle (BN of 3 channels at N = 1), where the two passes
// split elements. A shape's property, as the results' order must be.
constexpr int64_t kMinGroupRows = 32;

// Whether the loop's rows are whole statistics groups that forward_groups
// and grad_groups take: a run of p.m elements whose statistics key stays
// put is one whole group (make_strided_loop merges only dimensions that
// line up in every operand), x, out (and in2 when given) contiguous along
// it, the parameter key stepping 0 or 1. Layer and RMS normalization over
// a tensor's innermost dimensions, instance normalization and BN at N = 1
// of packed NCHW, per-activation with N innermost.
bool rows_are_groups(const NormProblem &p, const StridedLoop &loop, bool in2) {
    if (p.spec.add || p.spec.relu || (p.dt != ANYDNN_DATA_FLOAT && p.dt != ANYDNN_DATA_DOUBLE) ||
        p.m * int64_t(dtype_size(p.dt)) > kGroupRowBytes || p.nstats < kMinGroupRows)
        return false;
    return loop.nd >= 2 && loop.inner() == p.m && loop.inner_stride(kNormStat) == 0 &&
           loop.inner_stride(kNormX) == 1 && loop.inner_stride(kNormOut) == 1 &&
           (!in2 || loop.inner_stride(kNormIn2) == 1) && loop.inner_stride(kNormParam) <= 1;
}

// The training forward with forward_groups where the rows are whole groups
// (rows_are_groups): false where they are not, and nothing is done.
bool forward_by_groups(const Handle &h, const NormProblem &p, const Layout &L, const NormBuffers &b, Stats *s) {
    NormArgs a = base_args(p);
    a.loop = make_loop(p, L, &p.y, nullptr, nullptr, false);
    if (!rows_are_groups(p, a.loop, false)) return false;
    const std::vector<double> scale = gather(p, L, true, b.scale), bias = gather(p, L, true, b.bias);
    const bool wide = p.dt != ANYDNN_DATA_FLOAT;  // the rows in float: float data only
    const ComputeArray c_scale(wide, scale), c_bias(wide, bias);
    std::vector<double> stats(2 * p.nstats);
    a.x = b.x;
    a.out = b.y;
    a.by_rows = true;
    a.cscale = c_scale.data();
    a.cbias = c_bias.data();
    a.dscale = scale.data();
    a.dbias = bias.data();
    a.alpha = p.alpha;
    a.beta = p.beta;
    a.epsilon = p.epsilon;
    a.rms = p.spec.kind == NormKind::rms;
    a.stat_partial = stats.data();
    normalization_kernels(h.isa).forward_groups(ExecContext{h.threads()}, a);
    s->mean.assign(stats.begin(), stats.begin() + p.nstats);
    s->var.assign(stats.begin() + p.nstats, stats.end());
    s->inv = inverse_std(s->var, p.epsilon);
    return true;
}

}  // namespace

// The training passes read x twice (statistics, then normalization) or x
// and dy twice (backward): beyond the last-level cache both reads come from
// memory. With the statistics groups along one dimension (BN's channels),
// and each group's parameters its own, the passes run a block of groups at a
// time instead, the block's elements small enough to stay in cache from
// the first pass to the second: memory is read once. Each core runs whole
// blocks, both passes, so a block stays in that core's L2 (with every
// block's passes split over the threads: two barriers per block, and half
// of each block re-read from the other core's cache; BN NCHW at mb16, 2
// threads: 7-10% less time forward and backward). The block depends on the
// shape only (so do the results, as the reductions' chunks do).
constexpr int64_t kBlockedMinBytes = int64_t{16} << 20;  // x (and dy) beyond half the 32 MiB L3
constexpr int64_t kBlockBytes = int64_t{1} << 20;        // a block's elements of those tensors, at most about

// The first block, or dim < 0 where the passes take x whole; tensors: the
// tensors of x's size the passes read twice (x, or x and dy).
GroupSlice blocking(const NormProblem &p, const Layout &L, int64_t tensors) {
    GroupSlice none;
    const int64_t esize = int64_t(dtype_size(p.dt)) * tensors, bytes = p.m * p.nstats * esize;
    if (bytes < kBlockedMinBytes || !folds(p)) return none;
    int dim = -1;
    for (int d = 0; d < p.nl; ++d) {
        if (!p.stat_dim[d] || p.ldims[d] == 1) continue;
        if (dim >= 0) return none;  // groups along two dimensions (per activation)
        dim = d;
    }
    if (dim < 0) return none;
    // Not where the groups are adjacent (NHWC channels): a block of them
    // leaves the passes runs of a few elements.
    if (L.x[dim] == 1) return none;
    const int64_t count = std::max<int64_t>(1, kBlockBytes / (p.m * esize));
    if (count >= p.ldims[dim]) return none;
    return {dim, 0, count};
}

// fn(slice) for every block from `block` on, whole blocks per core (see
// kBlockBytes): fn runs its passes with one thread.
template <class Fn>
void for_each_block(const Handle &h, const NormProblem &p, const GroupSlice &block, Fn &&fn) {
    const int64_t blocks = (p.ldims[block.dim] + block.count - 1) / block.count;
    parallel_ranges(ExecContext{h.threads()}, blocks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            GroupSlice sl = block;
            sl.first = i * block.count;
            sl.count = std::min(block.count, p.ldims[sl.dim] - sl.first);
            fn(sl);
        }
    });
}

void execute_norm_inference(const Handle &h, const NormProblem &p, const NormBuffers &b) {
    const Layout L = make_layout(p);
    std::vector<double> mean = gather(p, L, false, b.est_mean);
    if (p.spec.kind == NormKind::rms) mean.assign(mean.size(), 0.0);
    run_forward(h, p, L, b, mean, inverse_std(gather(p, L, false, b.est_var), p.epsilon), nullptr);
}

void execute_norm_training(const Handle &h, const NormProblem &p, const NormBuffers &b) {
    const Layout L = make_layout(p);
    unsigned char *mask = p.spec.relu ? b.reserve : nullptr;
    Stats s;
    if (!forward_by_groups(h, p, L, b, &s)) {
        if (const GroupSlice block = blocking(p, L, 1); block.dim >= 0) {
            s.mean.resize(p.nstats), s.var.resize(p.nstats), s.inv.resize(p.nstats);
            for_each_block(h, p, block, [&](const GroupSlice &sl) {
                const Stats part = batch_stats(h, p, L, b.x, sl, 1);
                run_forward(h, p, L, b, part.mean, part.inv, mask, sl, 1);
                std::copy(part.mean.begin(), part.mean.end(), s.mean.begin() + sl.first);
                std::copy(part.var.begin(), part.var.end(), s.var.begin() + sl.first);
                std::copy(part.inv.begin(), part.inv.end(), s.inv.begin() + sl.first);
            });
        } else {
            s = batch_stats(h, p, L, b.x);
            run_forward(h, p, L, b, s.mean, s.inv, mask);
        }
    }
    if (b.save_mean != nullptr) {
        scatter(p, L, false, b.save_mean, false, [&](int64_t i, double) { return s.mean[i]; });
        scatter(p, L, false, b.save_inv, false, [&](int64_t i, double) { return s.inv[i]; });
    }
    if (b.running_mean != nullptr) {
        // factor 1 replaces the averages without reading them (the first call's may be uninitialized).
        const double f = p.factor;
        const bool blend = f != 1;
        const double unbias = p.m > 1 ? static_cast<double>(p.m) / static_cast<double>(p.m - 1) : 0.0;
        scatter(p, L, false, b.running_mean, blend,
                [&](int64_t i, double old) { return (blend ? (1 - f) * old : 0.0) + f * s.mean[i]; });
        scatter(p, L, false, b.running_var, blend,
                [&](int64_t i, double old) { return (blend ? (1 - f) * old : 0.0) + f * s.var[i] * unbias; });
    }
}

namespace {

// The backward passes over the groups of a slice (all of them by default):
// dx, dz, and the sums of dy (sd) and dy xhat (sdx) of its parameter groups.
void run_backward(const Handle &h, const NormProblem &p, const Layout &L, const NormBuffers &b,
                  const GroupSlice &slice, std::vector<double> &sd, std::vector<double> &sdx, int threads) {
    const bool rms = p.spec.kind == NormKind::rms, sliced = slice.dim >= 0;
    // A slice's part of an array of every group (blocking(): statistics and
    // parameter groups coincide, one index along the slice's dimension).
    const auto part = [&](std::vector<double> v) {
        return sliced ? std::vector<double>(v.begin() + slice.first, v.begin() + slice.first + slice.count) : v;
    };
    Stats s;
    if (b.saved_mean != nullptr) {
        s.mean = part(gather(p, L, false, b.saved_mean));
        s.inv = part(gather(p, L, false, b.saved_inv));
        if (rms) s.mean.assign(s.mean.size(), 0.0);
    } else {
        s = batch_stats(h, p, L, b.x, slice, threads);
    }
    const std::vector<double> scale = part(gather(p, L, true, b.scale));
    const int64_t nstats = int64_t(s.mean.size()), nparams = sliced ? nstats : p.nparams;
    unsigned char *mask = p.spec.relu ? b.reserve : nullptr;
    const ExecContext ctx{threads};

    NormArgs a = base_args(p);
    a.nstats = nstats;
    a.nparams = nparams;
    int64_t off[kNormOperands];
    a.loop = make_loop(p, L, nullptr, &p.dy, p.has_dz ? &p.dz : nullptr, mask != nullptr, slice, off);
    a.x = advance(b.x, off[kNormX], p.dt);
    a.in2 = advance(b.dy, off[kNormIn2], p.dt);
    a.dz = p.has_dz ? advance(b.dz, off[kNormDz], p.dt) : nullptr;
    a.mask = mask == nullptr ? nullptr : mask + off[kNormMask];
    a.mean = s.mean.data();
    a.inv = s.inv.data();
    a.scale = scale.data();
    a.wide = wide_compute(p, s.mean, s.inv, true);
    plan_units(a, nstats + nparams);
    std::vector<double> stat_partial(a.chunks * 2 * nstats), param_partial(a.chunks * 2 * nparams);
    a.stat_partial = stat_partial.data();
    a.param_partial = param_partial.data();
    normalization_kernels(h.isa).grad_sums(ctx, a);

    // Chunks added in order: c1 = sum of g, c2 = sum of g * xhat over each
    // statistics group; dbias, dscale per parameter.
    std::vector<double> c1(nstats), c2(nstats);
    sd.assign(nparams, 0.0);
    sdx.assign(nparams, 0.0);
    for (int64_t c = 0; c < a.chunks; ++c) {
        const double *st = &stat_partial[c * 2 * nstats], *pa = &param_partial[c * 2 * nparams];
        for (int64_t g = 0; g < nstats; ++g) {
            c1[g] += st[g];
            c2[g] += st[nstats + g];
        }
        for (int64_t g = 0; g < nparams; ++g) {
            sd[g] += pa[g];
            sdx[g] += pa[nparams + g];
        }
    }
    // dx = alpha * inv * (g - mean(g) - xhat * mean(g xhat)) as dy * ca (times
    // scale unless folded in) + x * cb + cc.
    const bool fold = folds(p), wide = a.wide;
    std::vector<double> ca(nstats), cb(nstats), cc(nstats);
    for (int64_t g = 0; g < nstats; ++g) {
        const double m1 = rms ? 0.0 : c1[g] / p.m, m2 = c2[g] / p.m, ai = p.alpha * s.inv[g];
        ca[g] = fold ? ai * scale[g] : ai;
        cb[g] = -ai * s.inv[g] * m2;
        cc[g] = ai * (s.mean[g] * s.inv[g] * m2 - m1);
    }
    const ComputeArray a_ca(wide, ca), a_cb(wide, cb), a_cc(wide, cc),
        a_scale(wide, fold ? std::vector<double>{} : scale);
    NormArgs d = a;
    d.loop = make_loop(p, L, &p.dx, &p.dy, nullptr, mask != nullptr, slice, off);
    d.out = advance(b.dx, off[kNormOut], p.dt);
    d.dz = nullptr;
    d.ca = a_ca.data();
    d.cb = a_cb.data();
    d.cc = a_cc.data();
    d.cscale = fold ? nullptr : a_scale.data();
    d.wide = wide;
    d.beta = p.beta;
    plan_units(d, 1);
    normalization_kernels(h.isa).grad_input(ctx, d);
}

}  // namespace

// The backward pass with grad_groups where the rows are whole groups (as
// forward_by_groups): false where they are not, and nothing is done; else
// sd, sdx: each parameter's sum of dy and of dy xhat.
bool backward_by_groups(const Handle &h, const NormProblem &p, const Layout &L, const NormBuffers &b,
                        std::vector<double> &sd, std::vector<double> &sdx) {
    NormArgs a = base_args(p);
    a.loop = make_loop(p, L, &p.dx, &p.dy, nullptr, false);
    if (p.has_dz || !rows_are_groups(p, a.loop, true)) return false;
    std::vector<double> mean, inv;
    if (b.saved_mean != nullptr) mean = gather(p, L, false, b.saved_mean), inv = gather(p, L, false, b.saved_inv);
    const std::vector<double> scale = gather(p, L, true, b.scale);
    const ComputeArray c_scale(p.dt != ANYDNN_DATA_FLOAT, scale);  // as forward_by_groups
    a.x = b.x;
    a.in2 = b.dy;
    a.out = b.dx;
    a.mean = mean.empty() ? nullptr : mean.data();
    a.inv = inv.empty() ? nullptr : inv.data();
    a.cscale = c_scale.data();
    a.dscale = scale.data();
    a.wide = p.m < kFloatMinGroup;  // as wide_compute's backward
    a.alpha = p.alpha;
    a.beta = p.beta;
    a.epsilon = p.epsilon;
    a.rms = p.spec.kind == NormKind::rms;
    // Chunks of whole rows, as many as the reductions' plan gives the shape.
    plan_units(a, p.nparams);
    a.by_rows = true;
    a.chunks = std::min(a.chunks, a.loop.total() / a.loop.inner());
    std::vector<double> partial(a.chunks * 2 * p.nparams);
    a.param_partial = partial.data();
    normalization_kernels(h.isa).grad_groups(ExecContext{h.threads()}, a);
    sd.assign(p.nparams, 0.0);
    sdx.assign(p.nparams, 0.0);
    for (int64_t c = 0; c < a.chunks; ++c)
        for (int64_t g = 0; g < p.nparams; ++g) {
            sd[g] += partial[(c * 2) * p.nparams + g];
            sdx[g] += partial[(c * 2 + 1) * p.nparams + g];
        }
    return true;
}

void execute_norm_backward(const Handle &h, const NormProblem &p, const NormBuffers &b) {
    const Layout L = make_layout(p);
    std::vector<double> sd, sdx;
    if (!backward_by_groups(h, p, L, b, sd, sdx)) {
        if (const GroupSlice block = blocking(p, L, 2); block.dim >= 0) {
            sd.resize(p.nparams), sdx.resize(p.nparams);
            for_each_block(h, p, block, [&](const GroupSlice &sl) {
                std::vector<double> part_sd, part_sdx;
                run_backward(h, p, L, b, sl, part_sd, part_sdx, 1);
                std::copy(part_sd.begin(), part_sd.end(), sd.begin() + sl.first);
                std::copy(part_sdx.begin(), part_sdx.end(), sdx.begin() + sl.first);
            });
        } else {
            run_backward(h, p, L, b, {}, sd, sdx, h.threads());
        }
    }
    const bool blend = p.beta_param != 0;
    scatter(p, L, true, b.dscale, blend,
            [&](int64_t i, double old) { return p.alpha_param * sdx[i] + p.beta_param * old; });
    scatter(p, L, true, b.dbias, blend,
            [&](int64_t i, double old) { return p.alpha_param * sd[i] + p.beta_param * old; });
}

}  // namespace anydnn::cpu
