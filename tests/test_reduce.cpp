// ReduceTensor against the reference on every ISA level: every op, data
// type, NaN option, reduced-dimension pattern, layout and beta; indices with
// ties and NaNs; reductions large enough to split over threads, bitwise the
// same for every thread count; the descriptor and every documented failure.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "common/test_util.hpp"
#include "reference/reduce_ref.hpp"

using namespace anydnn_test;

namespace {

const anydnnDataType_t kFloatTypes[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF,
                                        ANYDNN_DATA_BFLOAT16};
const anydnnReduceTensorOp_t kOps[] = {ANYDNN_REDUCE_TENSOR_ADD,   ANYDNN_REDUCE_TENSOR_MUL,
                                       ANYDNN_REDUCE_TENSOR_MIN,   ANYDNN_REDUCE_TENSOR_MAX,
                                       ANYDNN_REDUCE_TENSOR_AMAX,  ANYDNN_REDUCE_TENSOR_AVG,
                                       ANYDNN_REDUCE_TENSOR_NORM1, ANYDNN_REDUCE_TENSOR_NORM2,
                                       ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS};

bool selects(anydnnReduceTensorOp_t op) {
    return op == ANYDNN_REDUCE_TENSOR_MIN || op == ANYDNN_REDUCE_TENSOR_MAX || op == ANYDNN_REDUCE_TENSOR_AMAX;
}
bool multiplies(anydnnReduceTensorOp_t op) {
    return op == ANYDNN_REDUCE_TENSOR_MUL || op == ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
}

// A reduce-tensor descriptor for the length of a test.
struct ReduceDesc {
    anydnnReduceTensorDescriptor_t d = nullptr;
    ReduceDesc() { EXPECT_EQ(anydnnCreateReduceTensorDescriptor(&d), ANYDNN_STATUS_SUCCESS); }
    ReduceDesc(anydnnReduceTensorOp_t op, anydnnDataType_t comp, anydnnNanPropagation_t nan,
               anydnnReduceTensorIndices_t indices, anydnnIndicesType_t itype = ANYDNN_32BIT_INDICES)
        : ReduceDesc() {
        EXPECT_EQ(anydnnSetReduceTensorDescriptor(d, op, comp, nan, indices, itype), ANYDNN_STATUS_SUCCESS)
            << last_error();
    }
    ~ReduceDesc() { anydnnDestroyReduceTensorDescriptor(d); }
    ReduceDesc(const ReduceDesc &) = delete;
    ReduceDesc &operator=(const ReduceDesc &) = delete;
    operator anydnnReduceTensorDescriptor_t() const { return d; }
};

anydnnDataType_t comp_type(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
}

// The indices output with guard words after it.
struct Indices {
    static constexpr uint32_t kGuard = 0xdeadbeef;
    std::vector<uint32_t> words;
    size_t count = 0;
    explicit Indices(size_t bytes) : words(bytes / 4 + 8, kGuard), count(bytes / 4) {}
    size_t bytes() const { return count * 4; }
    bool guards_intact() const {
        for (size_t i = count; i < words.size(); ++i)
            if (words[i] != kGuard) return false;
        return true;
    }
    std::vector<uint32_t> values() const { return {words.begin(), words.begin() + static_cast<long>(count)}; }
};

// Inputs that exercise each op: multiples of 1/4 (many ties, exact in every
// type) for MIN/MAX/AMAX, with NaNs; values near 1 with some zeros for the
// products (no overflow, even in f16); uniform otherwise. Works on the whole
// span (gaps too) by offset, which is fast for the large tensors.
void fill_input(Tensor &a, anydnnReduceTensorOp_t op) {
    if (multiplies(op)) a.fill_random(0.9, 1.1);
    else a.fill_random(-2, 2);
    for (int64_t i = 0; i < a.shape().span(); ++i) {
        if (selects(op)) a.set_offset(i, i % 23 == 5 ? NAN : std::round(a.at_offset(i) * 4) / 4);
        else if (op == ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS && i % 7 == 3) a.set_offset(i, 0);
    }
}

double rel_tol(anydnnDataType_t dt) { return 2 * storage_tol(dt); }
// Sums accumulate in double in the library and the reference alike, so the
// results differ by at most one rounding to C's type; the absolute slack
// covers results that round to subnormals.
double abs_tol(anydnnDataType_t dt) { return dt == ANYDNN_DATA_DOUBLE ? 1e-12 : 1e-6; }

bool same_bytes(const Tensor &x, const Tensor &y) {
    return std::memcmp(x.data(), y.data(), static_cast<size_t>(x.shape().span()) * dtype_size(x.dtype())) == 0;
}

// Runs one reduction and checks it against the reference: values, indices
// (when the op selects and `with_indices`), guards and gaps.
void check_reduce(const Handle &h, anydnnReduceTensorOp_t op, anydnnNanPropagation_t nan, bool with_indices,
                  const Shape &as, const Shape &cs, anydnnDataType_t dt, double alpha, double beta) {
    ReduceDesc desc(op, comp_type(dt), nan,
                    with_indices ? ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES : ANYDNN_REDUCE_TENSOR_NO_INDICES);
    Tensor a(as, dt), c(cs, dt), c0(cs, dt);
    fill_input(a, op);
    if (beta != 0) c.fill_random(-1, 1);
    c0.copy_from(c);
    size_t ibytes = 99, wbytes = 99;
    ASSERT_OK(anydnnGetReductionIndicesSize(h, desc, a.desc(), c.desc(), &ibytes));
    ASSERT_OK(anydnnGetReductionWorkspaceSize(h, desc, a.desc(), c.desc(), &wbytes));
    const bool indexed = with_indices && selects(op);
    EXPECT_EQ(ibytes, indexed ? static_cast<size_t>(cs.elements()) * 4 : 0u);
    EXPECT_EQ(wbytes, 0u);
    Indices idx(ibytes);
    const Scalar al(alpha), be(beta);
    ASSERT_OK(anydnnReduceTensor(h, desc, ibytes ? idx.words.data() : nullptr, ibytes, nullptr, 0, al.ptr(dt),
                                 a.desc(), a.data(), be.ptr(dt), c.desc(), c.data()));
    std::vector<uint32_t> ref_idx;
    const auto ref = ref::reduce(op, nan == ANYDNN_PROPAGATE_NAN, alpha, a, beta, c0, &ref_idx);
    expect_close(c.values(), ref, rel_tol(dt), abs_tol(dt), "reduce");
    if (indexed) EXPECT_EQ(idx.values(), ref_idx);
    EXPECT_TRUE(idx.guards_intact());
    EXPECT_TRUE(c.guards_intact());
    EXPECT_TRUE(c.gaps_equal(c0));
}

// C's dimensions for each reduced-dimension pattern of A = 2x5x6x7.
const std::vector<int> kDims = {2, 5, 6, 7};
const std::vector<std::vector<int>> kPatterns = {
    {1, 1, 1, 1},  // everything
    {2, 1, 6, 7},  // C only (channels: strided in NCHW, contiguous in NHWC)
    {2, 5, 1, 1},  // spatial
    {1, 5, 6, 7},  // N only
    {2, 5, 6, 7},  // nothing: an elementwise op
    {1, 5, 6, 1},  // N and W
    {2, 1, 1, 7},  // C and H
    {2, 5, 6, 1},  // W only (the innermost)
    {1, 1, 6, 7},  // N and C
};

std::string pattern_name(const std::vector<int> &cd) {
    std::string s;
    for (size_t i = 0; i < cd.size(); ++i) s += (i ? "x" : "") + std::to_string(cd[i]);
    return s;
}

// A's layout and C's in the same style: packed NCHW, packed NHWC, padded.
enum class Layout { nchw, nhwc, padded };
Shape layout(Layout l, const std::vector<int> &dims) {
    switch (l) {
    case Layout::nhwc: return packed_nhwc(dims);
    case Layout::padded: return padded(dims);
    default: return packed(dims);
    }
}
const Layout kLayouts[] = {Layout::nchw, Layout::nhwc, Layout::padded};
const char *layout_name(Layout l) { return l == Layout::nchw ? "nchw" : l == Layout::nhwc ? "nhwc" : "padded"; }

class Reduce : public ::testing::TestWithParam<std::string> {};

TEST_P(Reduce, EveryOpTypeNanOptionPatternLayoutAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (anydnnReduceTensorOp_t op : kOps)
        for (anydnnDataType_t dt : kFloatTypes)
            for (anydnnNanPropagation_t nan : {ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_PROPAGATE_NAN})
                for (bool with_indices : {false, true}) {
                    if (with_indices && !selects(op)) continue;
                    for (const auto &cd : kPatterns)
                        for (Layout l : kLayouts)
                            for (double beta : {0.0, 0.5}) {
                                SCOPED_TRACE("op " + std::to_string(op) + " " + dtype_name(dt) + " nan " +
                                             std::to_string(nan) + (with_indices ? " indices" : "") + " c " +
                                             pattern_name(cd) + " " + layout_name(l) + " beta " +
                                             std::to_string(beta));
                                check_reduce(h, op, nan, with_indices, layout(l, kDims), layout(l, cd), dt, 0.75,
                                             beta);
                            }
                }
}

TEST_P(Reduce, FiveDimensionalAndStridedInnermost) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // W outermost in memory (permuted), and an innermost stride of 2 (no
    // dimension contiguous: the strided fallback).
    const Shape permuted{{2, 3, 4, 5, 6}, {1, 2, 7, 30, 160}};
    const Shape strided{{2, 3, 4, 5}, {130, 40, 10, 2}};
    const std::vector<std::pair<Shape, std::vector<int>>> cases = {
        {permuted, {2, 1, 4, 1, 6}}, {permuted, {1, 3, 1, 5, 1}}, {permuted, {1, 1, 1, 1, 1}},
        {strided, {2, 3, 1, 1}},     {strided, {2, 1, 4, 5}},     {strided, {1, 1, 1, 1}},
        {strided, {2, 3, 4, 5}}};
    for (const auto &[as, cd] : cases)
        for (anydnnReduceTensorOp_t op : {ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_REDUCE_TENSOR_AMAX,
                                          ANYDNN_REDUCE_TENSOR_MIN, ANYDNN_REDUCE_TENSOR_NORM2})
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_HALF}) {
                SCOPED_TRACE("a " + as.to_string() + " c " + pattern_name(cd) + " op " + std::to_string(op) + " " +
                             dtype_name(dt));
                check_reduce(h, op, ANYDNN_NOT_PROPAGATE_NAN, true, as, padded(cd, 1), dt, -1.5, 0.25);
            }
}

// Shapes that take each parallel strategy: few outputs with long rows (the
// threads share one element's blocks), few contiguous columns with many rows
// (the threads share a column chunk's blocks), many outputs of rows and of
// columns (the threads take whole outputs), counts of outputs where the
// strategy depends on the thread count (6 rows; 384 columns, 6 chunks on
// AVX-512), and long strided rows (the packing fallback).
struct LargeCase {
    Shape a;
    std::vector<int> c;
};
std::vector<LargeCase> large_cases() {
    return {{packed({2, 1, 300, 1001}), {2, 1, 1, 1}},
            {packed({1, 1, 1, 300007}), {1, 1, 1, 1}},
            {packed_nhwc({4, 24, 64, 65}), {1, 24, 1, 1}},
            {packed({8, 64, 33, 17}), {8, 64, 1, 1}},
            {packed({3, 100, 40, 41}), {3, 1, 40, 41}},
            {packed({6, 1, 50, 1001}), {6, 1, 1, 1}},
            {packed_nhwc({2, 384, 16, 32}), {1, 384, 1, 1}},
            {Shape{{2, 1, 100, 1001}, {200200, 200200, 2002, 2}}, {2, 1, 1, 1}}};
}

TEST_P(Reduce, LargeReductionsSplitOverThreads) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const LargeCase &lc : large_cases())
        for (anydnnReduceTensorOp_t op : {ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_REDUCE_TENSOR_AVG,
                                          ANYDNN_REDUCE_TENSOR_NORM2, ANYDNN_REDUCE_TENSOR_MAX,
                                          ANYDNN_REDUCE_TENSOR_AMAX})
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_BFLOAT16, ANYDNN_DATA_DOUBLE}) {
                SCOPED_TRACE("a " + lc.a.to_string() + " c " + pattern_name(lc.c) + " op " + std::to_string(op) +
                             " " + dtype_name(dt));
                check_reduce(h, op, ANYDNN_NOT_PROPAGATE_NAN, true, lc.a, packed(lc.c), dt, 1.0, 0.0);
            }
}

// A of 16 MiB and more, folded in place, is prefetched ahead as it is read
// (fold_row's Stream): rows of 1000 and NCHW per-channel sums, f32 and f64
// (the types read in place), the rows' count odd so the lanes' tails show.
TEST_P(Reduce, InputsBeyondTheCache) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const LargeCase cases[] = {{packed({4201, 1, 1, 1000}), {4201, 1, 1, 1}},
                               {packed({17, 3, 311, 269}), {1, 3, 1, 1}}};
    for (const LargeCase &lc : cases)
        for (anydnnReduceTensorOp_t op : {ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_REDUCE_TENSOR_MAX})
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE}) {
                SCOPED_TRACE("a " + lc.a.to_string() + " c " + pattern_name(lc.c) + " op " + std::to_string(op) +
                             " " + dtype_name(dt));
                check_reduce(h, op, ANYDNN_NOT_PROPAGATE_NAN, op == ANYDNN_REDUCE_TENSOR_MAX, lc.a, packed(lc.c), dt,
                             1.0, 0.5);
            }
}

TEST_P(Reduce, SameBitsForEveryThreadCount) {
    Handle h1(GetParam(), 1), h2(GetParam(), 2), h3(GetParam(), 3);
    SKIP_IF_UNAVAILABLE(h1);
    for (const LargeCase &lc : large_cases())
        for (anydnnReduceTensorOp_t op : {ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_REDUCE_TENSOR_NORM2,
                                          ANYDNN_REDUCE_TENSOR_AVG, ANYDNN_REDUCE_TENSOR_MIN})
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_HALF}) {
                SCOPED_TRACE("a " + lc.a.to_string() + " c " + pattern_name(lc.c) + " op " + std::to_string(op) +
                             " " + dtype_name(dt));
                ReduceDesc desc(op, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN,
                                ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES);
                Tensor a(lc.a, dt), c_shape(packed(lc.c), dt);
                fill_input(a, op);
                size_t ibytes = 0;
                ASSERT_OK(anydnnGetReductionIndicesSize(h1, desc, a.desc(), c_shape.desc(), &ibytes));
                std::vector<std::vector<uint32_t>> idx;
                std::vector<std::unique_ptr<Tensor>> c;
                for (const Handle *h : {&h1, &h2, &h3}) {
                    c.push_back(std::make_unique<Tensor>(packed(lc.c), dt));
                    idx.emplace_back(ibytes / 4 + 1);
                    const Scalar one(1), zero(0);
                    ASSERT_OK(anydnnReduceTensor(*h, desc, idx.back().data(), ibytes, nullptr, 0, one.ptr(dt),
                                                 a.desc(), a.data(), zero.ptr(dt), c.back()->desc(),
                                                 c.back()->data()));
                }
                EXPECT_TRUE(same_bytes(*c[0], *c[1]));
                EXPECT_TRUE(same_bytes(*c[0], *c[2]));
                EXPECT_EQ(idx[0], idx[1]);
                EXPECT_EQ(idx[0], idx[2]);
            }
}

TEST_P(Reduce, LongFloatSumsAreCorrectlyRounded) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // 2^20 terms: a float accumulation would be off by ~1e-5 relative; the
    // documented double accumulation leaves one rounding.
    const Shape as = packed({1, 1, 1024, 1024});
    Tensor a(as, ANYDNN_DATA_FLOAT), c(packed({1, 1, 1, 1}), ANYDNN_DATA_FLOAT);
    a.fill_random(0, 1);
    double exact = 0;
    for (double v : a.values()) exact += v;
    ReduceDesc desc(ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN,
                    ANYDNN_REDUCE_TENSOR_NO_INDICES);
    const float one = 1, zero = 0;
    ASSERT_OK(anydnnReduceTensor(h, desc, nullptr, 0, nullptr, 0, &one, a.desc(), a.data(), &zero, c.desc(),
                                 c.data()));
    EXPECT_LE(std::fabs(c.values()[0] - exact), std::ldexp(std::fabs(exact), -24) * 1.01);
}

// Hand-checked values: the reference and the library against known answers.
TEST_P(Reduce, HandCheckedValuesAndIndices) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const double x[8] = {1, 3, 3, NAN, 3, -5, NAN, 2};
    Tensor a(packed({1, 1, 1, 8}), ANYDNN_DATA_FLOAT), c(packed({1, 1, 1, 1}), ANYDNN_DATA_FLOAT);
    for (int i = 0; i < 8; ++i) a.set({0, 0, 0, i}, x[i]);
    struct Expect {
        anydnnReduceTensorOp_t op;
        anydnnNanPropagation_t nan;
        double value;
        uint32_t index;
    };
    const Expect cases[] = {
        {ANYDNN_REDUCE_TENSOR_MAX, ANYDNN_NOT_PROPAGATE_NAN, 3, 1},
        {ANYDNN_REDUCE_TENSOR_MAX, ANYDNN_PROPAGATE_NAN, NAN, 3},
        {ANYDNN_REDUCE_TENSOR_MIN, ANYDNN_NOT_PROPAGATE_NAN, -5, 5},
        {ANYDNN_REDUCE_TENSOR_MIN, ANYDNN_PROPAGATE_NAN, NAN, 3},
        {ANYDNN_REDUCE_TENSOR_AMAX, ANYDNN_NOT_PROPAGATE_NAN, 5, 5},
    };
    const float one = 1, zero = 0;
    for (const Expect &e : cases) {
        SCOPED_TRACE("op " + std::to_string(e.op) + " nan " + std::to_string(e.nan));
        ReduceDesc desc(e.op, ANYDNN_DATA_FLOAT, e.nan, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES);
        uint32_t index = 77;
        ASSERT_OK(anydnnReduceTensor(h, desc, &index, 4, nullptr, 0, &one, a.desc(), a.data(), &zero, c.desc(),
                                     c.data()));
        const double got = c.values()[0];
        if (std::isnan(e.value)) EXPECT_TRUE(std::isnan(got)) << got;
        else EXPECT_EQ(got, e.value);
        EXPECT_EQ(index, e.index);
        std::vector<uint32_t> ref_idx;
        const double r = ref::reduce(e.op, e.nan == ANYDNN_PROPAGATE_NAN, 1, a, 0, c, &ref_idx)[0];
        EXPECT_EQ(std::isnan(r), std::isnan(e.value));
        if (!std::isnan(e.value)) EXPECT_EQ(r, e.value);
        EXPECT_EQ(ref_idx, std::vector<uint32_t>{e.index});
    }
    // All NaN: NaN either way, at the first position.
    for (int i = 0; i < 8; ++i) a.set({0, 0, 0, i}, NAN);
    for (anydnnNanPropagation_t nan : {ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_PROPAGATE_NAN}) {
        ReduceDesc desc(ANYDNN_REDUCE_TENSOR_MAX, ANYDNN_DATA_FLOAT, nan, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES);
        uint32_t index = 77;
        ASSERT_OK(anydnnReduceTensor(h, desc, &index, 4, nullptr, 0, &one, a.desc(), a.data(), &zero, c.desc(),
                                     c.data()));
        EXPECT_TRUE(std::isnan(c.values()[0]));
        EXPECT_EQ(index, 0u);
    }
    // The sums: a NaN propagates whatever the option; no zeros in a product of zeros is 1.
    const double y[4] = {1, -2, 3, -4};
    Tensor b(packed({1, 1, 2, 2}), ANYDNN_DATA_DOUBLE), d(packed({1, 1, 1, 1}), ANYDNN_DATA_DOUBLE);
    for (int i = 0; i < 4; ++i) b.set({0, 0, i / 2, i % 2}, y[i]);
    const std::pair<anydnnReduceTensorOp_t, double> sums[] = {
        {ANYDNN_REDUCE_TENSOR_ADD, -2},   {ANYDNN_REDUCE_TENSOR_AVG, -0.5},         {ANYDNN_REDUCE_TENSOR_NORM1, 10},
        {ANYDNN_REDUCE_TENSOR_MUL, 24},   {ANYDNN_REDUCE_TENSOR_NORM2, std::sqrt(30.0)},
        {ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS, 24}};
    const double done = 1, dzero = 0;
    for (const auto &[op, value] : sums) {
        ReduceDesc desc(op, ANYDNN_DATA_DOUBLE, ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_NO_INDICES);
        ASSERT_OK(anydnnReduceTensor(h, desc, nullptr, 0, nullptr, 0, &done, b.desc(), b.data(), &dzero, d.desc(),
                                     d.data()));
        EXPECT_NEAR(d.values()[0], value, 1e-14) << "op " << op;
        EXPECT_NEAR(ref::reduce(op, false, 1, b, 0, d, nullptr)[0], value, 1e-14) << "op " << op;
    }
    for (int i = 0; i < 4; ++i) b.set({0, 0, i / 2, i % 2}, 0);
    {
        ReduceDesc desc(ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS, ANYDNN_DATA_DOUBLE, ANYDNN_NOT_PROPAGATE_NAN,
                        ANYDNN_REDUCE_TENSOR_NO_INDICES);
        ASSERT_OK(anydnnReduceTensor(h, desc, nullptr, 0, nullptr, 0, &done, b.desc(), b.data(), &dzero, d.desc(),
                                     d.data()));
        EXPECT_EQ(d.values()[0], 1.0);
    }
    b.set({0, 0, 1, 0}, NAN);
    for (anydnnNanPropagation_t nan : {ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_PROPAGATE_NAN})
        for (anydnnReduceTensorOp_t op : {ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_REDUCE_TENSOR_NORM2,
                                          ANYDNN_REDUCE_TENSOR_MUL}) {
            ReduceDesc desc(op, ANYDNN_DATA_DOUBLE, nan, ANYDNN_REDUCE_TENSOR_NO_INDICES);
            ASSERT_OK(anydnnReduceTensor(h, desc, nullptr, 0, nullptr, 0, &done, b.desc(), b.data(), &dzero,
                                         d.desc(), d.data()));
            EXPECT_TRUE(std::isnan(d.values()[0])) << "op " << op << " nan " << nan;
        }
}

TEST_P(Reduce, IndicesAreRowMajorOverTheReducedDimensions) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // NHWC, reducing C, H and W of 1x3x2x2: memory order is h, w, c, but the
    // index is c * 4 + h * 2 + w. The maximum 9 appears at (c=2,h=0,w=0),
    // index 8, met first in memory, and at (c=1,h=1,w=1), index 7: the
    // smaller index wins.
    Tensor a(packed_nhwc({1, 3, 2, 2}), ANYDNN_DATA_FLOAT), c(packed({1, 1, 1, 1}), ANYDNN_DATA_FLOAT);
    a.fill_random(-1, 0);
    a.set({0, 2, 0, 0}, 9);
    a.set({0, 1, 1, 1}, 9);
    ReduceDesc desc(ANYDNN_REDUCE_TENSOR_MAX, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN,
                    ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES);
    const float one = 1, zero = 0;
    uint32_t index = 77;
    ASSERT_OK(anydnnReduceTensor(h, desc, &index, 4, nullptr, 0, &one, a.desc(), a.data(), &zero, c.desc(),
                                 c.data()));
    EXPECT_EQ(c.values()[0], 9.0);
    EXPECT_EQ(index, 7u);
    // The indices output is packed in C's row-major order whatever C's strides:
    // C = 2x3x1x1 (NHWC strides) of A = 2x3x1x4, each row's max at w = (n + c) % 4.
    Tensor a2(packed_nhwc({2, 3, 1, 4}), ANYDNN_DATA_FLOAT), c2(packed_nhwc({2, 3, 1, 1}), ANYDNN_DATA_FLOAT);
    a2.fill_random(-1, 0);
    for (int n = 0; n < 2; ++n)
        for (int ch = 0; ch < 3; ++ch) a2.set({n, ch, 0, (n + ch) % 4}, 1);
    uint32_t idx[6];
    ASSERT_OK(anydnnReduceTensor(h, desc, idx, sizeof idx, nullptr, 0, &one, a2.desc(), a2.data(), &zero,
                                 c2.desc(), c2.data()));
    for (int n = 0; n < 2; ++n)
        for (int ch = 0; ch < 3; ++ch) EXPECT_EQ(idx[n * 3 + ch], static_cast<uint32_t>((n + ch) % 4));
}

TEST(ReduceDescriptor, SetGetAndBadValues) {
    ReduceDesc d;
    anydnnReduceTensorOp_t op;
    anydnnDataType_t comp;
    anydnnNanPropagation_t nan;
    anydnnReduceTensorIndices_t ind;
    anydnnIndicesType_t itype;
    EXPECT_STATUS(anydnnGetReduceTensorDescriptor(d, &op, &comp, &nan, &ind, &itype), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnSetReduceTensorDescriptor(d, ANYDNN_REDUCE_TENSOR_AMAX, ANYDNN_DATA_DOUBLE, ANYDNN_PROPAGATE_NAN,
                                              ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES, ANYDNN_64BIT_INDICES));
    ASSERT_OK(anydnnGetReduceTensorDescriptor(d, &op, &comp, &nan, &ind, &itype));
    EXPECT_EQ(op, ANYDNN_REDUCE_TENSOR_AMAX);
    EXPECT_EQ(comp, ANYDNN_DATA_DOUBLE);
    EXPECT_EQ(nan, ANYDNN_PROPAGATE_NAN);
    EXPECT_EQ(ind, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES);
    EXPECT_EQ(itype, ANYDNN_64BIT_INDICES);
    ASSERT_OK(anydnnGetReduceTensorDescriptor(d, nullptr, nullptr, nullptr, nullptr, nullptr));

    const auto set = [&](int o, int c, int n, int i, int t) {
        return anydnnSetReduceTensorDescriptor(d, static_cast<anydnnReduceTensorOp_t>(o),
                                               static_cast<anydnnDataType_t>(c), static_cast<anydnnNanPropagation_t>(n),
                                               static_cast<anydnnReduceTensorIndices_t>(i),
                                               static_cast<anydnnIndicesType_t>(t));
    };
    EXPECT_STATUS(set(9, ANYDNN_DATA_FLOAT, 0, 0, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(-1, ANYDNN_DATA_FLOAT, 0, 0, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(0, ANYDNN_DATA_HALF, 0, 0, 0), ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(set(0, 12345, 0, 0, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(0, ANYDNN_DATA_FLOAT, 2, 0, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(0, ANYDNN_DATA_FLOAT, 0, 2, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(0, ANYDNN_DATA_FLOAT, 0, 0, 4), ANYDNN_STATUS_BAD_PARAM);
    // A failed set leaves the descriptor as it was.
    ASSERT_OK(anydnnGetReduceTensorDescriptor(d, &op, nullptr, nullptr, nullptr, nullptr));
    EXPECT_EQ(op, ANYDNN_REDUCE_TENSOR_AMAX);

    EXPECT_STATUS(anydnnCreateReduceTensorDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetReduceTensorDescriptor(nullptr, ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_DATA_FLOAT,
                                                  ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_NO_INDICES,
                                                  ANYDNN_32BIT_INDICES),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetReduceTensorDescriptor(nullptr, &op, &comp, &nan, &ind, &itype), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(anydnnDestroyReduceTensorDescriptor(nullptr));
}

TEST(ReduceErrors, BadParamAndNotSupported) {
    Handle h("generic");
    ASSERT_TRUE(h.available);
    const anydnnDataType_t f32 = ANYDNN_DATA_FLOAT;
    ReduceDesc max_idx(ANYDNN_REDUCE_TENSOR_MAX, f32, ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES);
    ReduceDesc unset;
    Tensor a(packed({2, 3, 4, 5}), f32), c(packed({2, 1, 1, 5}), f32), c0(packed({2, 1, 1, 5}), f32);
    a.fill_random();
    c.fill_random();
    c0.copy_from(c);
    uint32_t idx[10 + 1];
    std::fill(idx, idx + 11, 0xdeadbeefu);
    const float one = 1, zero = 0;
    auto reduce = [&](anydnnHandle_t hh, anydnnReduceTensorDescriptor_t d, void *ip, size_t ib, const void *al,
                      anydnnTensorDescriptor_t ad, const void *ap, const void *be, anydnnTensorDescriptor_t cd,
                      void *cp) { return anydnnReduceTensor(hh, d, ip, ib, nullptr, 0, al, ad, ap, be, cd, cp); };
    const size_t ib = 10 * 4;
    EXPECT_STATUS(reduce(nullptr, max_idx, idx, ib, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, nullptr, idx, ib, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, unset, idx, ib, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, nullptr, a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), a.data(), &zero, nullptr, c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), nullptr, &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), a.data(), &zero, c.desc(), nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, nullptr, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), a.data(), nullptr, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    // Indices asked for: NULL or too small.
    EXPECT_STATUS(reduce(h, max_idx, nullptr, ib, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib - 1, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    // A dimension of C neither 1 nor A's; dimension counts or types that differ.
    Tensor c_bad(packed({2, 1, 2, 5}), f32), c_3d(packed({2, 1, 5}), f32);
    Tensor c_f64(packed({2, 1, 1, 5}), ANYDNN_DATA_DOUBLE);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), a.data(), &zero, c_bad.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), a.data(), &zero, c_3d.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a.desc(), a.data(), &zero, c_f64.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    // Integer tensors and 64-bit indices are valid but not implemented.
    Tensor a_s8(packed({2, 3, 4, 5}), ANYDNN_DATA_INT8), c_s8(packed({2, 1, 1, 5}), ANYDNN_DATA_INT8);
    EXPECT_STATUS(reduce(h, max_idx, idx, ib, &one, a_s8.desc(), a_s8.data(), &zero, c_s8.desc(), c_s8.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    ReduceDesc idx64(ANYDNN_REDUCE_TENSOR_MIN, f32, ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES,
                     ANYDNN_64BIT_INDICES);
    EXPECT_STATUS(reduce(h, idx64, idx, 80, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    size_t bytes = 0;
    EXPECT_STATUS(anydnnGetReductionIndicesSize(h, idx64, a.desc(), c.desc(), &bytes), ANYDNN_STATUS_NOT_SUPPORTED);
    // Nothing was written by any failed call.
    EXPECT_TRUE(same_bytes(c, c0));
    for (uint32_t v : idx) EXPECT_EQ(v, 0xdeadbeefu);

    // The size queries validate like the reduction and need a result pointer.
    EXPECT_STATUS(anydnnGetReductionIndicesSize(h, max_idx, a.desc(), c.desc(), nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetReductionWorkspaceSize(h, max_idx, a.desc(), c.desc(), nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetReductionIndicesSize(h, unset, a.desc(), c.desc(), &bytes), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetReductionWorkspaceSize(h, max_idx, a.desc(), c_bad.desc(), &bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetReductionIndicesSize(nullptr, max_idx, a.desc(), c.desc(), &bytes),
                  ANYDNN_STATUS_BAD_PARAM);

    // Indices of a 64-bit type are fine where no index is written (ADD), and
    // an op that selects nothing ignores FLATTENED_INDICES.
    ReduceDesc add64(ANYDNN_REDUCE_TENSOR_ADD, f32, ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES,
                     ANYDNN_64BIT_INDICES);
    ASSERT_OK(anydnnGetReductionIndicesSize(h, add64, a.desc(), c.desc(), &bytes));
    EXPECT_EQ(bytes, 0u);
    EXPECT_OK(reduce(h, add64, nullptr, 0, &one, a.desc(), a.data(), &zero, c.desc(), c.data()));
}

INSTANTIATE_TEST_SUITE_P(Isa, Reduce, ::testing::ValuesIn(isa_levels()));

}  // namespace
