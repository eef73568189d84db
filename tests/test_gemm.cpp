// The packed GEMM engine (src/cpu/gemm.hpp, internal) against the reference:
// every transpose pair, sizes around each ISA level's tile and cache blocks,
// padded leading dimensions, alpha/beta (beta 0 over NaN), the epilogue,
// batch-reduce GEMM, the caller's workspace, and results that do not depend
// on the thread count, in f32 and f64 on every ISA level.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "core/handle.hpp"
#include "cpu/gemm.hpp"
#include "reference/gemm_ref.hpp"

using namespace anydnn_test;
using anydnn::cpu::ExecContext;
using anydnn::cpu::GemmBias;
using anydnn::cpu::GemmBlocking;

namespace {

// One problem: sizes, transposes, padding of the leading dimensions,
// scalars, the epilogue and the thread count.
struct Case {
    bool ta = false, tb = false;
    int64_t m = 1, n = 1, k = 1, batch = 1;  // batch 1 with brgemm false: plain gemm
    bool brgemm = false;
    int64_t pad_a = 0, pad_b = 0, pad_c = 0;
    double alpha = 1, beta = 0;
    GemmBias bias = GemmBias::none;
    bool post_op = false;
    bool prepack = false;    // op(B) packed once by pack_b, given as b_packed
    bool prepack_a = false;  // op(A) packed once by pack_a, given as a_packed
    bool a_side_by_side = false;  // brgemm, A not transposed: A_i = A_0 + i k, one matrix (a KRSC filter's taps)
    int threads = 2;

    std::string str() const {
        return std::string(brgemm ? "brgemm batch " + std::to_string(batch) + " " : "gemm ") + (ta ? "T" : "N") +
               (tb ? "T" : "N") + " m " + std::to_string(m) + " n " + std::to_string(n) + " k " + std::to_string(k) +
               " pads " + std::to_string(pad_a) + "," + std::to_string(pad_b) + "," + std::to_string(pad_c) +
               " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) + " bias " +
               std::to_string(static_cast<int>(bias)) + (post_op ? " post-op" : "") + (prepack ? " prepacked B" : "") + (prepack_a ? " prepacked A" : "") +
               (a_side_by_side ? " A side by side" : "") + " threads " +
               std::to_string(threads) + " seed " + std::to_string(seed());
    }
};

// The post-op of the tests: c = relu(c) * 0.5 + residual(row, col), and a
// count of the calls that covered each element.
template <class T>
struct PostOpCtx {
    int64_t n;
    const std::vector<T> *residual;  // m x n dense
    std::vector<std::atomic<int>> *hits;
};

template <class T>
void relu_half_residual(T *c, int64_t ldc, int64_t m, int64_t n, int64_t row0, int64_t col0,
                        const void *vctx) noexcept {
    const auto *ctx = static_cast<const PostOpCtx<T> *>(vctx);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const int64_t at = (row0 + i) * ctx->n + col0 + j;
            T &x = c[i * ldc + j];
            x = (x > T(0) ? x : T(0)) * T(0.5) + (*ctx->residual)[static_cast<size_t>(at)];
            ++(*ctx->hits)[static_cast<size_t>(at)];
        }
}

template <class T>
std::vector<T> random_values(size_t count) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(count);
    for (T &x : v) x = static_cast<T>(dist(rng()));
    return v;
}

constexpr int64_t kGuard = 16;  // elements before and after C
constexpr double kSentinel = 12345.0;

// The operands, C with guards and gaps, and the run of one Case.
template <class T>
struct Problem {
    Case cs;
    int64_t lda, ldb, ldc;
    std::vector<std::vector<T>> a, b;  // a: one matrix of batch * k columns when side by side
    std::vector<T> bias, residual;
    std::vector<T> c0;  // C before the call: guard, rows with gaps, guard
    std::vector<std::atomic<int>> hits;

    explicit Problem(const Case &c) : cs(c), hits(static_cast<size_t>(c.m * c.n)) {
        const int64_t a_rows = cs.ta ? cs.k : cs.m, a_cols = cs.ta ? cs.m : cs.k;
        const int64_t b_rows = cs.tb ? cs.n : cs.k, b_cols = cs.tb ? cs.k : cs.n;
        lda = (cs.a_side_by_side ? cs.batch * a_cols : a_cols) + cs.pad_a;
        ldb = b_cols + cs.pad_b;
        ldc = cs.n + cs.pad_c;
        if (cs.a_side_by_side) a.push_back(random_values<T>(static_cast<size_t>(a_rows * lda + 1)));
        for (int64_t i = 0; i < cs.batch; ++i) {
            if (!cs.a_side_by_side) a.push_back(random_values<T>(static_cast<size_t>(a_rows * lda + 1)));
            b.push_back(random_values<T>(static_cast<size_t>(b_rows * ldb + 1)));
        }
        if (cs.bias != GemmBias::none)
            bias = random_values<T>(static_cast<size_t>(cs.bias == GemmBias::per_row ? cs.m : cs.n));
        residual = random_values<T>(static_cast<size_t>(cs.m * cs.n));
        c0.assign(static_cast<size_t>(cs.m * ldc + 2 * kGuard), static_cast<T>(kSentinel));
        const std::vector<T> init = random_values<T>(static_cast<size_t>(cs.m * cs.n));
        for (int64_t i = 0; i < cs.m; ++i)
            for (int64_t j = 0; j < cs.n; ++j)
                c0[static_cast<size_t>(kGuard + i * ldc + j)] =
                    cs.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : init[static_cast<size_t>(i * cs.n + j)];
    }

    std::vector<const T *> ptrs(const std::vector<std::vector<T>> &v) const {
        std::vector<const T *> p;
        for (const auto &x : v) p.push_back(x.data());
        return p;
    }
    std::vector<const T *> a_ptrs() const {
        if (!cs.a_side_by_side) return ptrs(a);
        std::vector<const T *> p;
        for (int64_t i = 0; i < cs.batch; ++i) p.push_back(a[0].data() + i * cs.k);
        return p;
    }

    // With cs.prepack: op(B) packed by pack_b into `buffer` (64-byte
    // aligned inside it, guard bytes behind it checked); else null.
    const T *pack_b(anydnn::Isa isa, const ExecContext &ctx, std::vector<unsigned char> &buffer) const {
        if (!cs.prepack) return nullptr;
        const anydnn::cpu::GemmKernels<T> &kernels = anydnn::cpu::gemm_kernels<T>(isa);
        const size_t size = kernels.packed_b_size(cs.n, cs.k * cs.batch);
        buffer.assign(size + 64 + 64, 0xa5);
        T *at = reinterpret_cast<T *>((reinterpret_cast<uintptr_t>(buffer.data()) + 63) & ~uintptr_t{63});
        const std::vector<const T *> bp = ptrs(b);
        kernels.pack_b(ctx, cs.tb, cs.n, cs.k, cs.batch, bp.data(), ldb, at);
        const auto *end = reinterpret_cast<const unsigned char *>(at) + size;
        for (const unsigned char *q = end; q < end + 64; ++q) EXPECT_EQ(*q, 0xa5) << "pack_b wrote past its size";
        return at;
    }

    // With cs.prepack_a: op(A) packed by pack_a, as pack_b above.
    const T *pack_a(anydnn::Isa isa, const ExecContext &ctx, std::vector<unsigned char> &buffer) const {
        if (!cs.prepack_a) return nullptr;
        const anydnn::cpu::GemmKernels<T> &kernels = anydnn::cpu::gemm_kernels<T>(isa);
        const size_t size = kernels.packed_a_size(cs.m, cs.k * cs.batch);
        buffer.assign(size + 64 + 64, 0xa5);
        T *at = reinterpret_cast<T *>((reinterpret_cast<uintptr_t>(buffer.data()) + 63) & ~uintptr_t{63});
        const std::vector<const T *> ap = a_ptrs();
        kernels.pack_a(ctx, cs.ta, cs.m, cs.k, cs.batch, ap.data(), lda, at);
        const auto *end = reinterpret_cast<const unsigned char *>(at) + size;
        for (const unsigned char *q = end; q < end + 64; ++q) EXPECT_EQ(*q, 0xa5) << "pack_a wrote past its size";
        return at;
    }

    // Runs the engine on a copy of c0 and returns it; `workspace` null uses
    // the cached-workspace convenience.
    std::vector<T> run(anydnn::Isa isa, int threads, void *workspace = nullptr) {
        for (auto &h : hits) h = 0;
        std::vector<T> c = c0;
        const PostOpCtx<T> pctx{cs.n, &residual, &hits};
        anydnn::cpu::GemmEpilogue<T> epi;
        epi.bias_kind = cs.bias;
        epi.bias = bias.empty() ? nullptr : bias.data();
        if (cs.post_op) {
            epi.post_op = relu_half_residual<T>;
            epi.post_op_ctx = &pctx;
        }
        const ExecContext ctx{threads};
        const std::vector<const T *> ap = a_ptrs(), bp = ptrs(b);
        if (cs.brgemm) {
            anydnn::cpu::BrgemmArgs<T> g;
            g.trans_a = cs.ta, g.trans_b = cs.tb, g.m = cs.m, g.n = cs.n, g.k = cs.k, g.batch = cs.batch;
            g.alpha = static_cast<T>(cs.alpha), g.beta = static_cast<T>(cs.beta);
            g.a = ap.data(), g.lda = lda, g.b = bp.data(), g.ldb = ldb;
            g.c = c.data() + kGuard, g.ldc = ldc, g.epilogue = epi;
            std::vector<unsigned char> packed, packed_a;
            g.b_packed = pack_b(isa, ctx, packed);
            g.a_packed = pack_a(isa, ctx, packed_a);
            if (workspace != nullptr) anydnn::cpu::gemm_kernels<T>(isa).brgemm(ctx, g, workspace);
            else anydnn::cpu::brgemm(isa, ctx, g);
        } else {
            anydnn::cpu::GemmArgs<T> g;
            g.trans_a = cs.ta, g.trans_b = cs.tb, g.m = cs.m, g.n = cs.n, g.k = cs.k;
            g.alpha = static_cast<T>(cs.alpha), g.beta = static_cast<T>(cs.beta);
            g.a = ap[0], g.lda = lda, g.b = bp[0], g.ldb = ldb;
            g.c = c.data() + kGuard, g.ldc = ldc, g.epilogue = epi;
            std::vector<unsigned char> packed, packed_a;
            g.b_packed = pack_b(isa, ctx, packed);
            g.a_packed = pack_a(isa, ctx, packed_a);
            if (workspace != nullptr) anydnn::cpu::gemm_kernels<T>(isa).gemm(ctx, g, workspace);
            else anydnn::cpu::gemm(isa, ctx, g);
        }
        return c;
    }

    size_t workspace_size(anydnn::Isa isa, int threads) const {
        return anydnn::cpu::gemm_kernels<T>(isa).workspace_size(ExecContext{threads}, cs.m, cs.n, cs.k * cs.batch);
    }

    // Checks c (a result of run()) against the reference: each element within
    // the rounding bound of its terms, the relative L2 error, the post-op's
    // coverage, and guards and gaps unchanged.
    void check(const std::vector<T> &c) const {
        ref::GemmRefProblem p;
        p.trans_a = cs.ta, p.trans_b = cs.tb, p.m = cs.m, p.n = cs.n, p.k = cs.k;
        p.lda = lda, p.ldb = ldb, p.ldc = ldc, p.alpha = cs.alpha, p.beta = cs.beta;
        p.bias = cs.bias == GemmBias::per_row ? ref::Bias::per_row
                 : cs.bias == GemmBias::per_col ? ref::Bias::per_col
                                                : ref::Bias::none;
        // The reference reads the scalars as the engine gets them.
        p.alpha = static_cast<T>(cs.alpha), p.beta = static_cast<T>(cs.beta);
        const ref::GemmRefResult r = ref::gemm<T>(p, a_ptrs(), ptrs(b), c0.data() + kGuard, bias.data());
        // A dot product of K terms evaluated in any order with one rounding per
        // operation is within K * u of the sum of the terms' magnitudes, plus
        // the roundings of the alpha/beta/bias/block combination.
        const double u = std::numeric_limits<T>::epsilon() / 2;
        const double bound = static_cast<double>(cs.k * cs.batch + 6) * u;
        std::vector<double> out, want;
        int bad = 0;
        for (int64_t i = 0; i < cs.m; ++i)
            for (int64_t j = 0; j < cs.n; ++j) {
                const size_t at = static_cast<size_t>(i * cs.n + j);
                double expect = r.c[at], slack = bound * r.magnitude[at];
                if (cs.post_op) {
                    expect = (expect > 0 ? expect : 0) * 0.5 + residual[at];
                    slack = slack * 0.5 + 2 * u * (std::fabs(expect) + 1);
                    if (hits[at] != 1 && bad++ < 5)
                        ADD_FAILURE() << "post-op covered (" << i << ", " << j << ") " << hits[at] << " times";
                }
                const double got = c[static_cast<size_t>(kGuard + i * ldc + j)];
                if (!(std::fabs(got - expect) <= slack + std::numeric_limits<T>::min()) && bad++ < 5)
                    ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", expected " << expect << " +- "
                                  << slack;
                out.push_back(got);
                want.push_back(expect);
            }
        if (!out.empty()) EXPECT_LE(rel_l2(out, want), sizeof(T) == 4 ? 1e-5 : 1e-13);
        for (size_t i = 0; i < c.size(); ++i) {
            const int64_t off = static_cast<int64_t>(i) - kGuard;
            const bool element = off >= 0 && off < cs.m * ldc && off % ldc < cs.n;
            if (!element && c[i] != static_cast<T>(kSentinel) && bad++ < 5)
                ADD_FAILURE() << "wrote outside C: offset " << off << " (ldc " << ldc << ")";
        }
    }
};

// Runs p on 1, 2 and 3 threads: checks the 1-thread result and that the
// others have its bits; returns it.
template <class T>
std::vector<T> check_same_for_any_thread_count(anydnn::Isa isa, Problem<T> &p) {
    const std::vector<T> one = p.run(isa, 1);
    p.check(one);
    for (int threads : {2, 3}) {
        const std::vector<T> more = p.run(isa, threads);
        EXPECT_EQ(std::memcmp(one.data(), more.data(), one.size() * sizeof(T)), 0) << threads << " threads differ from 1";
    }
    return one;
}

template <class T>
void check_case(anydnn::Isa isa, const Case &cs) {
    SCOPED_TRACE(cs.str());
    Problem<T> p(cs);
    p.check(p.run(isa, cs.threads));
}

// Runs fn.template operator()<T>() for T = float and double.
template <class Fn>
void for_each_type(Fn &&fn) {
    fn.template operator()<float>();
    fn.template operator()<double>();
}

class Gemm : public ::testing::TestWithParam<std::string> {
protected:
    // The handle's ISA level, as the exec files take it.
    anydnn::Isa isa() const { return handle_.h->isa; }
    bool available() const { return handle_.available; }
    template <class T>
    GemmBlocking blocking() const {
        return anydnn::cpu::gemm_kernels<T>(isa()).blocking;
    }

private:
    Handle handle_{GetParam()};
};

#define SKIP_IF_NO_ISA() \
    if (!available()) GTEST_SKIP() << "ISA level not available on this machine"

TEST_P(Gemm, EachLevelHasItsOwnKernels) {
    SKIP_IF_NO_ISA();
    // A test binary built without the library's ISA definitions would get
    // the generic tables for every level and test nothing else.
    if (isa() == anydnn::Isa::generic) GTEST_SKIP() << "the generic level is the baseline";
    EXPECT_NE(&anydnn::cpu::gemm_kernels<float>(isa()), &anydnn::cpu::gemm_kernels<float>(anydnn::Isa::generic));
    EXPECT_NE(&anydnn::cpu::gemm_kernels<double>(isa()), &anydnn::cpu::gemm_kernels<double>(anydnn::Isa::generic));
}

TEST_P(Gemm, TileEdgesEveryTransposeAndBeta) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        const int mr = bl.mr, nr = bl.nr;
        const std::vector<int64_t> ms = {1, mr - 1, mr, mr + 1, 3 * mr + 2};
        const std::vector<int64_t> ns = {1, nr / 3, nr / 3 + 1, nr / 2 + 1, nr - 1, nr, nr + 1, 2 * nr + 5};
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                for (int64_t m : ms)
                    for (int64_t n : ns)
                        for (int64_t k : {1, 17})
                            // alpha 1 with beta 0: the tiles' plain store.
                            for (double alpha : {1.5, 1.0})
                                for (double beta : {0.0, 0.75}) {
                                    Case cs;
                                    cs.ta = ta, cs.tb = tb, cs.m = m, cs.n = n, cs.k = k;
                                    cs.pad_a = 3, cs.pad_b = 1, cs.pad_c = 5;
                                    cs.alpha = alpha, cs.beta = beta;
                                    check_case<T>(isa(), cs);
                                }
    });
}

TEST_P(Gemm, ReductionBlocks) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        for (int64_t k : {bl.kc - 1, bl.kc, bl.kc + 1, 2 * bl.kc + 3})
            for (bool ta : {false, true})
                for (bool tb : {false, true})
                    for (double beta : {0.0, -0.5}) {
                        Case cs;
                        cs.ta = ta, cs.tb = tb, cs.m = 2 * bl.mr + 1, cs.n = bl.nr + 3, cs.k = k;
                        cs.pad_a = 2, cs.pad_b = 7, cs.pad_c = 1;
                        cs.alpha = -0.75, cs.beta = beta;
                        check_case<T>(isa(), cs);
                    }
    });
}

TEST_P(Gemm, CacheBlocksAndThreadSplits) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        struct Size {
            int64_t m, n, k;
        };
        // Past one mc block of rows, past one nc block of columns, and large
        // enough for both splits over threads (along m and along n).
        for (const Size s : {Size{bl.mc + bl.mr + 1, 17, 9}, Size{5, bl.nc + bl.nr + 1, 9}, Size{300, 40, 70},
                             Size{40, 300, 70}, Size{97, 131, 150}})
            for (bool ta : {false, true})
                for (bool tb : {false, true}) {
                    Case cs;
                    cs.ta = ta, cs.tb = tb, cs.m = s.m, cs.n = s.n, cs.k = s.k;
                    cs.pad_a = 1, cs.pad_c = 2;
                    cs.alpha = 0.5, cs.beta = 2;
                    check_case<T>(isa(), cs);
                }
    });
}

// op(A) = A^T with many rows and few columns of C: the tiles read A's
// steps in place (TileA::steps), partial last slivers and past one mc block
// of rows, over several reduction blocks.
TEST_P(Gemm, TransposedAInPlace) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        for (int64_t m : {int64_t{64}, int64_t{67}, bl.mc + 2 * bl.mr + 3})
            for (int64_t n : {int64_t{1}, int64_t{17}, int64_t{bl.nr}, int64_t{2 * bl.nr}})
                for (double beta : {0.0, 0.5}) {
                    Case cs;
                    cs.ta = true, cs.m = m, cs.n = n, cs.k = bl.kc + 3;
                    cs.pad_a = 3, cs.pad_b = 2, cs.pad_c = 1;
                    cs.alpha = 1.25, cs.beta = beta;
                    check_case<T>(isa(), cs);
                }
    });
}

TEST_P(Gemm, AlphaZeroAndEmptyReductionReadNeitherOperand) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        for (double beta : {0.0, 1.0, -2.0})
            for (int64_t k : {0, 5}) {
                Case cs;
                cs.m = 13, cs.n = 29, cs.k = k, cs.alpha = k == 0 ? 1.0 : 0.0, cs.beta = beta;
                cs.bias = GemmBias::per_col, cs.post_op = true;
                SCOPED_TRACE(cs.str());
                Problem<T> p(cs);
                for (auto &v : p.a) std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
                for (auto &v : p.b) std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
                std::vector<T> c = p.run(isa(), 2);
                // The reference would propagate the NaNs: compare with a zero product.
                for (auto &v : p.a) std::fill(v.begin(), v.end(), T(0));
                for (auto &v : p.b) std::fill(v.begin(), v.end(), T(0));
                p.check(c);
            }
    });
}

TEST_P(Gemm, Epilogue) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        for (GemmBias bias : {GemmBias::none, GemmBias::per_row, GemmBias::per_col})
            for (bool post : {false, true})
                for (int64_t k : {int64_t{7}, bl.kc + 5})  // the bias and post-op apply once, after the last block
                    for (double beta : {0.0, 0.5}) {
                        Case cs;
                        cs.m = 3 * bl.mr + 1, cs.n = 2 * bl.nr - 3, cs.k = k, cs.tb = true;
                        cs.pad_c = 3, cs.alpha = 1.25, cs.beta = beta, cs.bias = bias, cs.post_op = post;
                        check_case<T>(isa(), cs);
                    }
        Case big;  // split over threads, so the post-op runs on both
        big.m = 200, big.n = 300, big.k = 33, big.bias = GemmBias::per_row, big.post_op = true;
        check_case<T>(isa(), big);
    });
}

TEST_P(Gemm, BatchReduce) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        // k = kc/2 + 3: reduction blocks span pairs.
        for (int64_t batch : {0, 1, 3, 7})
            for (int64_t k : {int64_t{1}, int64_t{13}, bl.kc / 2 + 3})
                for (bool ta : {false, true})
                    for (bool tb : {false, true}) {
                        Case cs;
                        cs.brgemm = true, cs.batch = batch;
                        cs.ta = ta, cs.tb = tb, cs.m = bl.mr + 3, cs.n = bl.nr + 5, cs.k = k;
                        cs.pad_a = 1, cs.pad_b = 2, cs.pad_c = 3;
                        cs.alpha = 0.5, cs.beta = batch == 3 ? 0.0 : 1.0;
                        cs.bias = GemmBias::per_row, cs.post_op = batch == 7;
                        check_case<T>(isa(), cs);
                        // A's pieces side by side: read in place as one matrix.
                        if (!ta && batch > 1) {
                            cs.a_side_by_side = true;
                            check_case<T>(isa(), cs);
                        }
                    }
    });
}

TEST_P(Gemm, ResultsDoNotDependOnTheThreadCount) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        struct Size {
            int64_t m, n, k, batch;
        };
        for (const Size s : {Size{64, 700, 64, 1}, Size{500, 49, 90, 1}, Size{123, 457, 300, 1}, Size{70, 90, 40, 9}})
            for (bool ta : {false, true}) {
                Case cs;
                cs.ta = ta, cs.m = s.m, cs.n = s.n, cs.k = s.k, cs.batch = s.batch, cs.brgemm = s.batch > 1;
                cs.alpha = 1, cs.beta = 0.5, cs.bias = GemmBias::per_col, cs.post_op = true;
                SCOPED_TRACE(cs.str());
                Problem<T> p(cs);
                check_same_for_any_thread_count(isa(), p);
            }
    });
}

// A few rows of C (m <= 4, A not transposed) take the path that streams B
// unpacked (util/gemm_small_m.hpp): both orientations of B, column counts
// around its blocks and thread units (64), reductions around the vector
// width, every epilogue; m = 5 is the packed path's again.
TEST_P(Gemm, FewRowsStreamB) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        for (int64_t m : {1, 2, 3, 4, 5})
            for (bool tb : {false, true})
                for (int64_t n : {1, 7, 17, 64, 65, 203})
                    for (int64_t k : {1, 3, 16, 37})
                        for (double beta : {0.0, 0.5}) {
                            Case cs;
                            cs.tb = tb, cs.m = m, cs.n = n, cs.k = k;
                            cs.pad_a = 2, cs.pad_b = 3, cs.pad_c = 1;
                            cs.alpha = -1.25, cs.beta = beta;
                            cs.bias = n % 2 ? GemmBias::per_col : GemmBias::per_row;
                            cs.post_op = k == 37;
                            check_case<T>(isa(), cs);
                        }
        // Split over threads in whole units: the same bits for any count.
        for (int64_t m : {1, 3})
            for (bool tb : {false, true}) {
                Case cs;
                cs.tb = tb, cs.m = m, cs.n = 1000, cs.k = 301, cs.beta = 0.25;
                cs.bias = GemmBias::per_col, cs.post_op = true;
                SCOPED_TRACE(cs.str());
                Problem<T> p(cs);
                check_same_for_any_thread_count(isa(), p);
            }
    });
}

// op(B) packed once (GemmKernels::pack_b) and given as b_packed: the same
// bits for every split over threads and, above kGemmFewRows rows, the same
// bits as packing at every call; across reduction and column blocks, both
// orientations of B, few rows (which read the packed slivers in place; a
// last sliver of 3 columns, summed as the column tile sums).
TEST_P(Gemm, PackedBOnceForManyProducts) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        struct Size {
            int64_t m, n, k;
        };
        // A batch-reduce GEMM whose reduction blocks span pairs (k = kc / 2 + 3).
        for (int64_t m : {3, 2 * bl.mr + 1})
            for (bool tb : {false, true}) {
                Case cs;
                cs.brgemm = true, cs.batch = 5, cs.tb = tb, cs.m = m, cs.n = 2 * bl.nr + 5, cs.k = bl.kc / 2 + 3;
                cs.pad_b = 2, cs.beta = 1, cs.bias = GemmBias::per_row, cs.prepack = true;
                SCOPED_TRACE(cs.str());
                Problem<T> p(cs);
                const std::vector<T> one = check_same_for_any_thread_count(isa(), p);
                p.cs.prepack = false;
                const std::vector<T> unpacked = p.run(isa(), 2);
                EXPECT_EQ(std::memcmp(unpacked.data(), one.data(), one.size() * sizeof(T)), 0)
                    << "prepacked B changed the result";
            }
        for (const Size s : {Size{5, 1, 1}, Size{bl.mr + 1, bl.nr + 1, 17}, Size{2 * bl.mr + 3, 2 * bl.nr + 5, bl.kc + 1},
                             Size{97, bl.nc + bl.nr + 1, 2 * bl.kc + 3}, Size{1, 1, 1}, Size{3, 2 * bl.nr - 1, 40},
                             Size{1, 1100, 2 * bl.kc + 3}, Size{4, 300, bl.kc + 1},
                             Size{2, 2 * bl.nr + 3, bl.kc + 7}})
            for (bool tb : {false, true}) {
                Case cs;
                cs.tb = tb, cs.m = s.m, cs.n = s.n, cs.k = s.k, cs.pad_b = 3, cs.pad_c = 2;
                cs.alpha = 0.75, cs.beta = 0.5, cs.bias = GemmBias::per_col, cs.post_op = s.m == 4;
                cs.prepack = true;
                SCOPED_TRACE(cs.str());
                Problem<T> p(cs);
                const std::vector<T> one = check_same_for_any_thread_count(isa(), p);
                if (s.m > anydnn::cpu::kGemmFewRows) {
                    p.cs.prepack = false;
                    const std::vector<T> unpacked = p.run(isa(), 2);
                    EXPECT_EQ(std::memcmp(unpacked.data(), one.data(), one.size() * sizeof(T)), 0)
                        << "prepacked B changed the result";
                } else {
                    // The same rows as the top of a product the tile computes.
                    Case tall = cs;
                    tall.m = bl.mr + 1;
                    Problem<T> t(tall);
                    std::copy(p.a[0].begin(), p.a[0].end(), t.a[0].begin());
                    t.b = p.b;
                    t.bias = p.bias;
                    std::copy(p.residual.begin(), p.residual.end(), t.residual.begin());
                    std::copy(p.c0.begin(), p.c0.begin() + kGuard + s.m * p.ldc, t.c0.begin());
                    const std::vector<T> rows = t.run(isa(), 2);
                    EXPECT_EQ(std::memcmp(rows.data(), one.data(), (kGuard + s.m * p.ldc) * sizeof(T)), 0)
                        << "few rows on a packed B differ from the tile's rows";
                }
            }
    });
}

// op(A) packed once (GemmKernels::pack_a) and given as a_packed, alone and
// with a packed B: the bits of packing at every call, for every split over
// threads, across reduction and row blocks, both orientations of A, plain
// and batch-reduce (blocks spanning pairs); few rows read A in place.
TEST_P(Gemm, PackedAOnceForManyProducts) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        const GemmBlocking bl = blocking<T>();
        struct Size {
            int64_t m, n, k, batch;
        };
        for (const Size s : {Size{3, 17, 9, 1}, Size{bl.mr + 1, bl.nr + 1, 17, 1}, Size{2 * bl.mr + 3, 40, bl.kc + 1, 1},
                             Size{bl.mc + bl.mr + 1, 33, 2 * bl.kc + 3, 1}, Size{2 * bl.mr + 1, bl.nr + 5, bl.kc / 2 + 3, 5}})
            for (bool ta : {false, true})
                for (bool with_b : {false, true}) {
                    Case cs;
                    cs.ta = ta, cs.m = s.m, cs.n = s.n, cs.k = s.k, cs.batch = s.batch, cs.brgemm = s.batch > 1;
                    cs.pad_a = 3, cs.pad_c = 1, cs.alpha = 1.5, cs.beta = 0.5, cs.bias = GemmBias::per_row;
                    cs.prepack_a = true, cs.prepack = with_b;
                    SCOPED_TRACE(cs.str());
                    Problem<T> p(cs);
                    const std::vector<T> one = check_same_for_any_thread_count(isa(), p);
                    if (s.m <= anydnn::cpu::kGemmFewRows && !with_b) continue;  // few rows: A in place anyway
                    p.cs.prepack_a = false;
                    const std::vector<T> unpacked = p.run(isa(), 2);
                    EXPECT_EQ(std::memcmp(unpacked.data(), one.data(), one.size() * sizeof(T)), 0)
                        << "prepacked A changed the result";
                }
    });
}

TEST_P(Gemm, CallersWorkspaceAnyAlignmentExactSize) {
    SKIP_IF_NO_ISA();
    for_each_type([&]<class T>() {
        for (int threads : {1, 2}) {
            Case cs;
            cs.m = 150, cs.n = 333, cs.k = 300, cs.tb = true, cs.beta = 0.25, cs.threads = threads;
            SCOPED_TRACE(cs.str());
            Problem<T> p(cs);
            const size_t size = p.workspace_size(isa(), threads);
            ASSERT_GT(size, 0u);
            // One byte off any alignment, with guard bytes behind it.
            std::vector<unsigned char> ws(size + 1 + 64, 0xa5);
            p.check(p.run(isa(), threads, ws.data() + 1));
            for (size_t i = size + 1; i < ws.size(); ++i) ASSERT_EQ(ws[i], 0xa5) << "workspace overrun at " << i;
        }
        Case empty;
        empty.m = 0, empty.n = 7, empty.k = 3;
        EXPECT_EQ(Problem<T>(empty).workspace_size(isa(), 2), 0u);
    });
}

INSTANTIATE_TEST_SUITE_P(Isa, Gemm, ::testing::ValuesIn(isa_levels()));

}  // namespace
