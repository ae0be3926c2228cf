// The thread pool (range coverage, exceptions, nesting, resizing) and the
// kernels that use it: every parallel kernel must give bit-identical results
// for 1, 2 and 3 threads on sizes large enough to actually split.
#include "core/thread_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "ir/json_loader.h"
#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/elementwise.h"
#include "kernels/gemm.h"
#include "kernels/norm.h"
#include "kernels/parallel.h"
#include "kernels/pool.h"
#include "kernels/softmax.h"
#include "model_fixtures.h"
#include "op_test_util.h"
#include "runtime/session.h"
#include "verify/verify.h"
#include "weights/torch_save.h"

namespace tir {
namespace {

using ::testing::HasSubstr;

// Restores the default single thread whatever a test does.
class ThreadPoolTest : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(1); }
};

struct Chunk {
  int64_t begin, end;
};

// Runs parallel_for and returns the chunks it made (checking each index once).
std::vector<Chunk> run_chunks(int64_t n, int64_t grain) {
  std::vector<std::atomic<int>> hits(size_t(std::max<int64_t>(n, 0)));
  std::mutex m;
  std::vector<Chunk> chunks;
  parallel_for(n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
    std::lock_guard<std::mutex> lk(m);
    chunks.push_back({b, e});
  });
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[size_t(i)].load(), 1) << "index " << i << " n=" << n;
  return chunks;
}

TEST_F(ThreadPoolTest, EveryIndexExactlyOnceInAtMostThreadsChunks) {
  for (int threads : {1, 2, 3, 4, 7}) {
    set_num_threads(threads);
    ASSERT_EQ(num_threads(), threads);
    for (int64_t n : {1, 2, 3, 5, 7, 16, 100, 1001}) {
      for (int64_t grain : {-3, 0, 1, 2, 3, 10, 1000, 5000}) {
        SCOPED_TRACE("threads=" + std::to_string(threads) + " n=" + std::to_string(n) +
                     " grain=" + std::to_string(grain));
        const std::vector<Chunk> chunks = run_chunks(n, grain);
        ASSERT_GE(chunks.size(), 1u);
        EXPECT_LE(chunks.size(), size_t(threads));
        const int64_t g = std::max<int64_t>(grain, 1);
        // As many chunks as the grain allows, up to the thread count.
        EXPECT_EQ(int64_t(chunks.size()), std::max<int64_t>(1, std::min<int64_t>(threads, n / g)));
        for (const Chunk& c : chunks) {
          EXPECT_LT(c.begin, c.end);
          if (chunks.size() > 1) EXPECT_GE(c.end - c.begin, g);
        }
      }
    }
  }
}

TEST_F(ThreadPoolTest, ChunkedForCoversEveryIndexOnceInTheAskedChunks) {
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    for (int64_t n : {1, 2, 7, 100}) {
      for (int64_t chunks : {-1, 1, 3, 8, 1000}) {
        std::mutex m;
        std::vector<Chunk> got;
        std::vector<int> hits(size_t(n), 0);
        parallel_for_chunks(n, chunks, [&](int64_t b, int64_t e) {
          std::lock_guard<std::mutex> lk(m);
          got.push_back({b, e});
          for (int64_t i = b; i < e; ++i) ++hits[size_t(i)];
        });
        for (int h : hits) EXPECT_EQ(h, 1);
        const int64_t want = threads == 1 ? 1 : std::max<int64_t>(1, std::min(chunks, n));
        EXPECT_EQ(int64_t(got.size()), want) << "threads " << threads << " n " << n << " chunks " << chunks;
      }
    }
  }
  int calls = 0;
  parallel_for_chunks(0, 4, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST_F(ThreadPoolTest, EmptyRangeNeverCallsFn) {
  for (int threads : {1, 3}) {
    set_num_threads(threads);
    int calls = 0;
    parallel_for(0, 1, [&](int64_t, int64_t) { ++calls; });
    parallel_for(-4, 1, [&](int64_t, int64_t) { ++calls; });
    EXPECT_EQ(calls, 0);
  }
}

TEST_F(ThreadPoolTest, SingleIndexRunsOnTheCaller) {
  set_num_threads(4);
  std::thread::id who;
  int64_t b = -1, e = -1;
  parallel_for(1, 1, [&](int64_t b0, int64_t e0) {
    who = std::this_thread::get_id();
    b = b0;
    e = e0;
  });
  EXPECT_EQ(who, std::this_thread::get_id());
  EXPECT_EQ(b, 0);
  EXPECT_EQ(e, 1);
}

TEST_F(ThreadPoolTest, ChunksRunConcurrentlyOnWorkers) {
  // Each of the two chunks waits for the other to start: only possible when a
  // worker runs one of them while the caller runs the other. The wait has a
  // generous deadlock guard, not a timing expectation.
  set_num_threads(2);
  std::mutex m;
  std::condition_variable cv;
  int started = 0;
  std::set<std::thread::id> ids;
  bool both = true;
  parallel_for(2, 1, [&](int64_t, int64_t) {
    std::unique_lock<std::mutex> lk(m);
    ids.insert(std::this_thread::get_id());
    ++started;
    cv.notify_all();
    if (!cv.wait_for(lk, std::chrono::seconds(30), [&] { return started == 2; })) both = false;
  });
  EXPECT_TRUE(both);
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 1u);
}

TEST_F(ThreadPoolTest, ExceptionsAreRethrownOnTheCaller) {
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    std::atomic<int64_t> done{0};
    try {
      parallel_for(300, 1, [&](int64_t b, int64_t e) {
        if (b <= 150 && 150 < e) throw std::runtime_error("chunk with 150 failed");
        done += e - b;
      });
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& err) {
      EXPECT_THAT(err.what(), HasSubstr("chunk with 150 failed"));
    }
    // The other chunks still ran, and the pool is usable afterwards.
    EXPECT_LT(done.load(), 300);
    if (threads > 1) EXPECT_GT(done.load(), 0);
    const auto chunks = run_chunks(1000, 1);
    EXPECT_EQ(chunks.size(), size_t(threads));
  }
}

TEST_F(ThreadPoolTest, EveryChunkThrowingGivesOneException) {
  set_num_threads(3);
  EXPECT_THROW(parallel_for(30, 1, [](int64_t, int64_t) { throw std::logic_error("all fail"); }), std::logic_error);
  EXPECT_EQ(run_chunks(30, 1).size(), 3u);
}

TEST_F(ThreadPoolTest, NestedCallsRunInlineWithoutDeadlock) {
  set_num_threads(3);
  const int64_t outer = 6, inner = 50;
  std::vector<std::atomic<int>> hits(size_t(outer * inner));
  std::atomic<int> inner_chunks{0};
  parallel_for(outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o)
      parallel_for(inner, 1, [&](int64_t i0, int64_t i1) {
        ++inner_chunks;
        for (int64_t i = i0; i < i1; ++i) hits[size_t(o * inner + i)]++;
      });
  });
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  // Inside a parallel region each inner call is one inline chunk.
  EXPECT_EQ(inner_chunks.load(), outer);
  // Nested exceptions still reach the outermost caller.
  EXPECT_THROW(parallel_for(4, 1,
                            [](int64_t, int64_t) {
                              parallel_for(10, 1, [](int64_t, int64_t) { throw std::runtime_error("inner"); });
                            }),
               std::runtime_error);
}

TEST_F(ThreadPoolTest, SetNumThreadsClampsAndResizes) {
  EXPECT_GE(default_num_threads(), 1);
  set_num_threads(0);
  EXPECT_EQ(num_threads(), 1);
  set_num_threads(-7);
  EXPECT_EQ(num_threads(), 1);
  for (int t : {4, 2, 5, 1, 3}) {
    set_num_threads(t);
    EXPECT_EQ(num_threads(), t);
    EXPECT_EQ(run_chunks(1000, 1).size(), size_t(t));
  }
  set_num_threads(3);
  set_num_threads(3);  // same count again: still works
  EXPECT_EQ(run_chunks(99, 1).size(), 3u);
}

TEST_F(ThreadPoolTest, SetNumThreadsInsideParallelForIsAnError) {
  set_num_threads(2);
  std::atomic<int> errors{0};
  std::string message;
  std::mutex m;
  parallel_for(2, 1, [&](int64_t, int64_t) {
    try {
      set_num_threads(4);
    } catch (const std::logic_error& e) {
      ++errors;
      std::lock_guard<std::mutex> lk(m);
      message = e.what();
    }
  });
  EXPECT_EQ(errors.load(), 2);
  EXPECT_THAT(message, HasSubstr("inside parallel_for"));
  EXPECT_EQ(num_threads(), 2);
}

TEST_F(ThreadPoolTest, ConcurrentCallersFromOtherThreads) {
  // Two application threads share the pool: one gets it, the other runs inline.
  set_num_threads(2);
  std::atomic<int> bad{0};
  auto client = [&] {
    for (int rep = 0; rep < 200; ++rep) {
      std::vector<int> hits(997, 0);
      parallel_for(997, 7, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
      });
      for (int h : hits) bad += h != 1;
    }
  };
  std::thread t1(client), t2(client);
  client();
  t1.join();
  t2.join();
  EXPECT_EQ(bad.load(), 0);
}

// ---- kernels: 1 vs 2 vs 3 threads, bit for bit ----
// The sizes below are chosen to split into >= 2 tasks with these grains.
static_assert(kMinTaskWork <= (int64_t(1) << 17), "raise the kernel test sizes with the grain");

template <typename T>
std::vector<T> random_vec(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = T(dist(rng));
  return v;
}

// Runs `compute` (which returns its outputs as bytes) at 1, 2 and 3 threads.
void expect_same_for_thread_counts(const std::function<std::vector<uint8_t>()>& compute) {
  set_num_threads(1);
  const std::vector<uint8_t> ref = compute();
  ASSERT_FALSE(ref.empty());
  for (int t : {2, 3}) {
    set_num_threads(t);
    const std::vector<uint8_t> got = compute();
    ASSERT_EQ(got.size(), ref.size());
    EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size()), 0) << "results differ with " << t << " threads";
  }
  set_num_threads(1);
}

template <typename... Vs>
std::vector<uint8_t> bytes_of(const Vs&... vs) {
  std::vector<uint8_t> out;
  auto add = [&](const auto& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    out.insert(out.end(), p, p + v.size() * sizeof(v[0]));
  };
  (add(vs), ...);
  return out;
}

std::vector<uint8_t> bytes_of_tensor(const Tensor& t) {
  EXPECT_TRUE(t.is_contiguous());
  return std::vector<uint8_t>(t.raw(), t.raw() + t.nbytes());
}

Tensor random_tensor(DType d, const Shape& shape, uint32_t seed) {
  Tensor t = make_owned(d, shape);
  const size_t n = size_t(t.numel());
  if (d == DType::F32) {
    auto v = random_vec<float>(n, seed, -3, 3);
    if (n) std::memcpy(t.raw(), v.data(), n * sizeof(float));
  } else if (d == DType::F64) {
    auto v = random_vec<double>(n, seed, -3, 3);
    if (n) std::memcpy(t.raw(), v.data(), n * sizeof(double));
  } else if (d == DType::I64) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < n; ++i) t.data<int64_t>()[i] = int64_t(rng() % 19) - 9;
  } else if (d == DType::Bool) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < n; ++i) t.data<bool>()[i] = rng() % 2;
  }
  return t;
}

TEST_F(ThreadPoolTest, GemmIsIdenticalForAnyThreadCount) {
  struct Case {
    int64_t M, N, K;
    bool ta, tb;
    float beta;
  };
  // Wide (column split), tall (row split), transposed operands, accumulate.
  for (const Case& c :
       {Case{3, 700, 90, false, false, 0.f}, Case{300, 20, 70, false, false, 0.f}, Case{65, 300, 129, true, true, 0.f},
        Case{200, 37, 300, true, false, 0.5f}, Case{1, 2000, 300, false, true, 1.f}}) {
    SCOPED_TRACE(std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K));
    const auto A = random_vec<float>(size_t(c.M * c.K), 1), B = random_vec<float>(size_t(c.K * c.N), 2);
    const auto C0 = random_vec<float>(size_t(c.M * c.N), 3);
    expect_same_for_thread_counts([&] {
      std::vector<float> C = C0;
      gemm_f32(c.M, c.N, c.K, A.data(), c.ta ? c.M : c.K, c.ta, B.data(), c.tb ? c.K : c.N, c.tb, C.data(), c.N, 0.75f,
               c.beta);
      return bytes_of(C);
    });
    const auto Ad = random_vec<double>(size_t(c.M * c.K), 4), Bd = random_vec<double>(size_t(c.K * c.N), 5);
    expect_same_for_thread_counts([&] {
      std::vector<double> C(size_t(c.M * c.N), 0.0);
      gemm_f64(c.M, c.N, c.K, Ad.data(), c.ta ? c.M : c.K, c.ta, Bd.data(), c.tb ? c.K : c.N, c.tb, C.data(), c.N, 1.0,
               0.0);
      return bytes_of(C);
    });
  }
  std::vector<int32_t> Ai(300 * 40), Bi(40 * 50);
  for (size_t i = 0; i < Ai.size(); ++i) Ai[i] = int32_t(i * 7 % 13) - 6;
  for (size_t i = 0; i < Bi.size(); ++i) Bi[i] = int32_t(i * 5 % 11) - 5;
  expect_same_for_thread_counts([&] {
    std::vector<int32_t> C(300 * 50, 0);
    gemm_int<int32_t>(300, 50, 40, Ai.data(), 40, false, Bi.data(), 50, false, C.data(), 50, 1, 0);
    return bytes_of(C);
  });
}

TEST_F(ThreadPoolTest, ConvIsIdenticalForAnyThreadCount) {
  auto geom = [](int64_t N, int64_t C, int64_t HW, int64_t OC, int64_t k, int64_t s, int64_t p, int64_t G) {
    Conv2dGeom g;
    g.N = N, g.C = C, g.H = g.W = HW, g.OC = OC, g.KH = g.KW = k, g.SH = g.SW = s, g.PH = g.PW = p, g.G = G;
    g.OH = g.OW = (HW + 2 * p - k) / s + 1;
    return g;
  };
  // One image (im2col and gemm split inside), a batch of grouped slices,
  // pointwise, depthwise.
  for (const Conv2dGeom& g : {geom(1, 8, 64, 64, 3, 1, 1, 1), geom(4, 16, 24, 32, 3, 1, 1, 2),
                              geom(1, 32, 14, 48, 1, 1, 0, 1), geom(2, 32, 32, 32, 3, 1, 1, 32)}) {
    SCOPED_TRACE("N=" + std::to_string(g.N) + " C=" + std::to_string(g.C) + " G=" + std::to_string(g.G));
    const auto x = random_vec<float>(size_t(g.N * g.C * g.H * g.W), 10);
    const auto w = random_vec<float>(size_t(g.OC * (g.C / g.G) * g.KH * g.KW), 11);
    const auto b = random_vec<float>(size_t(g.OC), 12);
    expect_same_for_thread_counts([&] {
      std::vector<float> y(size_t(g.N * g.OC * g.OH * g.OW), -1.f);
      conv2d<float>(g, x.data(), w.data(), b.data(), y.data());
      return bytes_of(y);
    });
  }
  // Transposed: x [N, C, H, W] -> y [N, OC, OH, OW], weight [C, OC/G, k, k].
  for (int64_t N : {1, 4}) {
    Conv2dGeom g;
    g.N = N, g.C = 16, g.H = g.W = 24, g.OC = 64, g.KH = g.KW = 4, g.SH = g.SW = 2, g.PH = g.PW = 1, g.G = 2;
    g.OH = g.OW = (g.H - 1) * g.SH - 2 * g.PH + g.KH;
    const auto x = random_vec<double>(size_t(g.N * g.C * g.H * g.W), 13);
    const auto w = random_vec<double>(size_t(g.C * (g.OC / g.G) * g.KH * g.KW), 14);
    const auto b = random_vec<double>(size_t(g.OC), 15);
    expect_same_for_thread_counts([&] {
      std::vector<double> y(size_t(g.N * g.OC * g.OH * g.OW), -1.0);
      conv_transpose2d<double>(g, x.data(), w.data(), b.data(), y.data());
      return bytes_of(y);
    });
  }
}

TEST_F(ThreadPoolTest, PoolingIsIdenticalForAnyThreadCount) {
  Pool2dGeom g;
  g.planes = 256, g.H = g.W = 32, g.KH = g.KW = 3, g.SH = g.SW = 2, g.PH = g.PW = 1;
  g.OH = g.OW = 16;
  const auto x = random_vec<float>(size_t(g.planes * g.H * g.W), 20);
  expect_same_for_thread_counts([&] {
    std::vector<float> y(static_cast<size_t>(g.planes * g.OH * g.OW)), ya(y.size()),
        yaa(static_cast<size_t>(g.planes * 25)), yam(yaa.size());
    std::vector<int64_t> idx(y.size()), idx2(yam.size());
    max_pool2d<float>(g, x.data(), y.data(), idx.data());
    avg_pool2d<float>(g, false, 0, x.data(), ya.data());
    Pool2dGeom ga = g;
    ga.OH = ga.OW = 5;
    adaptive_avg_pool2d<float>(ga, x.data(), yaa.data());
    adaptive_max_pool2d<float>(ga, x.data(), yam.data(), idx2.data());
    return bytes_of(y, ya, yaa, yam, idx, idx2);
  });
}

TEST_F(ThreadPoolTest, ElementwiseIsIdenticalForAnyThreadCount) {
  const Shape shape{3, 170, 301};
  const Tensor a = random_tensor(DType::F32, shape, 30);
  const Tensor b = random_tensor(DType::F32, shape, 31);
  // A permuted view of a contiguous [301, 170, 3] tensor, and a broadcast row.
  const Tensor base = random_tensor(DType::F32, {301, 170, 3}, 32);
  const Tensor perm = base.view_as(shape, {1, 3, 170 * 3}, 0);
  const Tensor row = broadcast_view(random_tensor(DType::F32, {301}, 33), shape);
  const Tensor cond = random_tensor(DType::Bool, shape, 34);
  const Tensor ia = random_tensor(DType::I64, shape, 35), ib = random_tensor(DType::I64, shape, 36);
  for (int64_t i = 0; i < ib.numel(); ++i) ib.data<int64_t>()[i] = ib.data<int64_t>()[i] % 9 + 10;  // divisors 2..18
  expect_same_for_thread_counts([&] {
    std::vector<uint8_t> all;
    auto keep = [&](const Tensor& t) {
      const auto bytes = bytes_of_tensor(t);
      all.insert(all.end(), bytes.begin(), bytes.end());
    };
    Tensor o1 = make_owned(DType::F32, shape), o2 = make_owned(DType::F32, shape), o3 = make_owned(DType::F32, shape);
    binary_kernel(BinaryOp::Add, o1, a, b, Scalar::of_double(0.5));
    binary_kernel(BinaryOp::Mul, o2, perm, row);
    binary_kernel(BinaryOp::Div, o3, row, perm);
    Tensor p = make_owned(DType::Bool, shape);
    binary_kernel(BinaryOp::Lt, p, perm, b);
    Tensor io = make_owned(DType::I64, shape);
    binary_kernel(BinaryOp::DivFloor, io, ia, ib);
    Tensor u1 = make_owned(DType::F32, shape), u2 = make_owned(DType::F32, shape);
    unary_kernel(UnaryOp::Gelu, u1, perm);
    unary_kernel(UnaryOp::Relu, u2, a);
    Tensor w = make_owned(DType::F32, shape);
    where_kernel(w, cond, perm, row);
    // In place through a permuted view (writes through its strides).
    Tensor inplace_base = make_owned(DType::F32, {301, 170, 3});
    std::memcpy(inplace_base.raw(), base.raw(), base.nbytes());
    const Tensor inplace = inplace_base.view_as(shape, {1, 3, 170 * 3}, 0);
    unary_kernel(UnaryOp::Exp, inplace, inplace);
    for (const Tensor* t : {&o1, &o2, &o3, &p, &io, &u1, &u2, &w, &inplace_base}) keep(*t);
    return all;
  });
}

TEST_F(ThreadPoolTest, NormAndSoftmaxAreIdenticalForAnyThreadCount) {
  const int64_t rows = 1024, n = 384;
  const auto x = random_vec<float>(size_t(rows * n), 40, -4, 4);
  const auto w = random_vec<float>(size_t(n), 41), b = random_vec<float>(size_t(n), 42);
  expect_same_for_thread_counts([&] {
    std::vector<float> ln(x.size()), rms(x.size()), mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
    layer_norm_rows<float>(x.data(), w.data(), b.data(), ln.data(), mean.data(), rstd.data(), rows, n, 1e-5);
    rms_norm_rows<float>(x.data(), w.data(), rms.data(), rows, n, 1e-6);
    // [N=8, C=48, inner=1024] views of the same data for the channel kernels.
    const int64_t N = 8, C = 48, inner = 1024;
    std::vector<double> cm(static_cast<size_t>(C)), cv(static_cast<size_t>(C));
    channel_moments<float>(x.data(), N, C, inner, cm.data(), cv.data());
    std::vector<float> aff(x.size()), gn(x.size()), gmean(static_cast<size_t>(N * 8)),
        grstd(static_cast<size_t>(N * 8));
    channel_affine<float>(x.data(), w.data(), b.data(), aff.data(), N, C, inner);
    group_norm<float>(x.data(), w.data(), b.data(), gn.data(), gmean.data(), grstd.data(), N, C, inner, 8, 1e-5);
    std::vector<float> sm(x.size()), lsm(x.size()), smi(x.size());
    softmax_f32(x.data(), sm.data(), rows, n, 1, SoftmaxKind::Softmax);
    softmax_f32(x.data(), lsm.data(), rows, n, 1, SoftmaxKind::LogSoftmax);
    softmax_f32(x.data(), smi.data(), 8, 96, 512, SoftmaxKind::SafeSoftmax);  // inner axis
    return bytes_of(ln, rms, mean, rstd, cm, cv, aff, gn, gmean, grstd, sm, lsm, smi);
  });
}

TEST_F(ThreadPoolTest, AttentionIsIdenticalForAnyThreadCount) {
  const int64_t L = 700, S = 400, E = 40, Ev = 24;
  const auto q = random_vec<float>(size_t(L * E), 50), k = random_vec<float>(size_t(S * E), 51);
  const auto v = random_vec<float>(size_t(S * Ev), 52), mask = random_vec<float>(size_t(L * S), 53);
  for (int variant = 0; variant < 2; ++variant) {
    expect_same_for_thread_counts([&] {
      AttnHead<float> h;
      h.L = L, h.S = S, h.E = E, h.Ev = Ev;
      h.q = {q.data(), E, 1};
      h.k = {k.data(), 1, S};  // a transposed view: k stored [E, S]
      h.v = {v.data(), Ev, 1};
      if (variant == 0) h.mask = {mask.data(), nullptr, S, 1};
      h.causal = variant == 1;
      h.scale = 0.125f;
      std::vector<float> out(static_cast<size_t>(L * Ev)), lse(static_cast<size_t>(L)), work;
      h.out = out.data();
      h.ldo = Ev;
      h.lse = lse.data();
      attention_head_f32(h, work);
      return bytes_of(out, lse);
    });
  }
}

TEST_F(ThreadPoolTest, AttentionOpsAreIdenticalForAnyThreadCount) {
  // Many (batch, head) slices: enough for the op to split over heads.
  const Tensor q = random_tensor(DType::F32, {2, 64, 16, 8}, 54);
  const Tensor k = random_tensor(DType::F32, {2, 64, 24, 8}, 55);
  const Tensor v = random_tensor(DType::F32, {2, 64, 24, 8}, 56);
  const Tensor kv_few = random_tensor(DType::F32, {2, 16, 24, 8}, 57);  // GQA: 4 query heads per kv head
  const Tensor mask = random_tensor(DType::F32, {16, 24}, 58);
  expect_same_for_thread_counts([&] {
    std::vector<uint8_t> all;
    auto keep = [&](const Tensor& t) {
      const auto bytes = bytes_of_tensor(t);
      all.insert(all.end(), bytes.begin(), bytes.end());
    };
    const char* sdpa = "aten.scaled_dot_product_attention.default";
    keep(test::run_op(sdpa, {q, k, v, mask}).out[0]);
    keep(test::run_op(sdpa, {q, k, v}, {{"is_causal", test::B(true)}}).out[0]);
    keep(test::run_op(sdpa, {q, kv_few, kv_few}, {{"enable_gqa", test::B(true)}}).out[0]);
    const auto flash = test::run_op("aten._scaled_dot_product_flash_attention_for_cpu.default", {q, k, v}, {}, 2);
    keep(flash.out[0]);
    keep(flash.out[1]);
    return all;
  });
}

// Whole models: 2 threads give exactly the 1-thread outputs, and still verify.
TEST_F(ThreadPoolTest, ModelFixturesAreIdenticalWithTwoThreads) {
  int checked = 0;
  for (const test::ModelFixture& f : test::model_fixtures()) {
    if (f.weights.empty() || f.io.empty()) continue;
    SCOPED_TRACE(f.id);
    const Model model = load_model_file(f.ir);
    const TensorMap io = read_weights_file(f.io);
    std::vector<Tensor> inputs, expected;
    for (const auto& gi : model.graph_inputs) inputs.push_back(*io.find("input." + gi.name));
    for (size_t i = 0; i < model.graph_outputs.size(); ++i) expected.push_back(*io.find("output." + std::to_string(i)));
    Session session(model);
    session.bind(read_weights_file(f.weights));
    set_num_threads(1);
    const std::vector<Tensor> one = session.run(inputs);
    session.reset_buffers();
    set_num_threads(2);
    const std::vector<Tensor> two = session.run(inputs);
    set_num_threads(1);
    ASSERT_EQ(one.size(), two.size());
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(one[i].nbytes(), two[i].nbytes());
      EXPECT_EQ(std::memcmp(one[i].raw(), two[i].raw(), one[i].nbytes()), 0) << "output " << i;
    }
    // rtol = atol = 1e-5, or (large activations) as close to float64 truth as PyTorch.
    const VerifyReport r = verify_outputs(two, expected, 1e-5, 1e-5);
    if (!r.is_valid) EXPECT_TRUE(test::within_truth(f.truth, two, expected)) << format_report(r);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace tir
