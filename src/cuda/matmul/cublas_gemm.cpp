// jf::cuda's matrix products (core/matmul_backends.hpp). float32/float64 go to cuBLAS's
// cublasSgemm / cublasDgemm (one product) or cublas[SD]gemmStridedBatched (a batch), loaded at run time with dlopen
// (like the driver: binaries start without a GPU or without libcublas; matmul then throws jf::no_device naming the
// library). Row-major c = a @ b is column-major c^T = b^T a^T, so b is cuBLAS's first operand; a row-major operand is
// read as its column-major transpose (op N), a column-major one (a transposed view) with op T: no copies. Each host
// thread has its own handle (created on first use, never destroyed: the library is never closed) set to the thread's
// stream, in CUBLAS_DEFAULT_MATH (full float32 precision, no TF32), with a 32 MiB workspace from the pool. int32, int64
// and bool go to an exact, untuned kernel (exact_gemm.cu). The problem's alpha and beta (jf::matmul's scalar and
// addend rewrites) are cuBLAS's: c = alpha * op(a) op(b) + beta * c in one call.
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "core/matmul_backends.hpp"
#include "cuda/matmul/exact_gemm.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::matmul_impl {

namespace {

using i64 = std::int64_t;

// The few cuBLAS declarations used (cublas_api.h), so the build needs no cuBLAS headers.
using handle_t = void*;
using status_t = int;  // CUBLAS_STATUS_SUCCESS = 0
constexpr int op_n = 0, op_t = 1;
constexpr int default_math = 0;  // CUBLAS_DEFAULT_MATH: no TF32 (CUBLAS_TF32_TENSOR_OP_MATH = 3)
constexpr std::size_t workspace_bytes = std::size_t(32) << 20;  // cuBLAS's advice for Hopper

template <class T>
using gemm_fn = status_t (*)(handle_t, int, int, int, int, int, const T*, const T*, int, long long, const T*, int,
                             long long, const T*, T*, int, long long, int);

template <class T>
using gemm1_fn = status_t (*)(handle_t, int, int, int, int, int, const T*, const T*, int, const T*, int, const T*, T*,
                              int);

struct cublas_api {
  status_t (*create)(handle_t*) = nullptr;
  status_t (*set_stream)(handle_t, void*) = nullptr;
  status_t (*set_math_mode)(handle_t, int) = nullptr;
  status_t (*set_workspace)(handle_t, void*, std::size_t) = nullptr;
  const char* (*status_string)(status_t) = nullptr;
  gemm_fn<float> sgemm = nullptr;
  gemm_fn<double> dgemm = nullptr;
  gemm1_fn<float> sgemm1 = nullptr;  // one product: cublasSgemm, as CuPy and PyTorch call it
  gemm1_fn<double> dgemm1 = nullptr;
  std::string reason;  // why cuBLAS is unavailable ("" when loaded)
};

#ifndef JF_CUDA_LIBRARY_DIR
#define JF_CUDA_LIBRARY_DIR ""
#endif

const cublas_api& api() {
  static const cublas_api loaded = [] {
    cublas_api a;
    // The soname of this toolkit's major version first, then the toolkit's own directory.
    const std::string dir = JF_CUDA_LIBRARY_DIR;
    const std::string names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", dir + "/libcublas.so"};
    void* lib = nullptr;
    std::string errors;
    for (const std::string& name : names) {
      if (name == "/libcublas.so") continue;
      lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      const char* e = ::dlerror();
      errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
    }
    if (!lib) {
      a.reason = "cannot load libcublas.so.13 / .12 (" + errors + ")";
      return a;
    }
    const auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (!fn && a.reason.empty()) a.reason = std::string("libcublas has no ") + name;
    };
    sym(a.create, "cublasCreate_v2");
    sym(a.set_stream, "cublasSetStream_v2");
    sym(a.set_math_mode, "cublasSetMathMode");
    sym(a.set_workspace, "cublasSetWorkspace_v2");
    sym(a.status_string, "cublasGetStatusString");
    sym(a.sgemm, "cublasSgemmStridedBatched");
    sym(a.dgemm, "cublasDgemmStridedBatched");
    sym(a.sgemm1, "cublasSgemm_v2");
    sym(a.dgemm1, "cublasDgemm_v2");
    return a;
  }();
  return loaded;
}

const cublas_api& require_cublas() {
  const cublas_api& a = api();
  if (!a.reason.empty()) throw no_device("jetfuse: jf::matmul of floats on jf::cuda needs cuBLAS: " + a.reason);
  return a;
}

void check(const cublas_api& a, status_t s, const char* what) {
  if (s != 0) throw cuda_error(std::string("jetfuse: ") + what + " failed: " + a.status_string(s));
}

// The calling thread's handle, bound to its stream.
handle_t thread_handle(const cublas_api& a) {
  thread_local handle_t h = nullptr;
  if (!h) {
    handle_t created = nullptr;
    check(a, a.create(&created), "cublasCreate");
    check(a, a.set_stream(created, cuda_rt::current_stream()), "cublasSetStream");
    check(a, a.set_math_mode(created, default_math), "cublasSetMathMode");
    check(a, a.set_workspace(created, cuda_rt::allocate(workspace_bytes), workspace_bytes), "cublasSetWorkspace");
    h = created;
  }
  return h;
}

// A matrix of the row-major problem as cuBLAS's column-major operand of its transpose.
struct blas_operand {
  int op;
  int ld;
};
blas_operand as_transposed(const operand& x) {
  // Row-major (unit column stride): its transpose is column-major with ld = row stride, op N.
  // Column-major (unit row stride): the stored column-major matrix is x itself, op T.
  if (x.col_stride == 1) return {op_n, static_cast<int>(x.row_stride)};
  return {op_t, static_cast<int>(x.col_stride)};
}

template <class T>
void blas_gemm(const cublas_api& a, gemm_fn<T> batched, gemm1_fn<T> single, const problem& p) {
  handle_t h = thread_handle(a);
  const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);  // beta 0: c is not read
  // c^T (n x m, ldc n) = b^T (n x k) * a^T (k x m).
  const blas_operand ob = as_transposed(p.b), oa = as_transposed(p.a);
  const T* b = static_cast<const T*>(p.b.data);
  const T* av = static_cast<const T*>(p.a.data);
  T* c = static_cast<T*>(p.c);
  const bool f32 = p.t == dtype::float32;
  if (p.batch == 1) {  // the plain GEMM: cuBLAS's heuristics for it, as other libraries get
    check(a, single(h, ob.op, oa.op, int(p.n), int(p.m), int(p.k), &alpha, b, ob.ld, av, oa.ld, &beta, c, int(p.n)),
          f32 ? "cublasSgemm" : "cublasDgemm");
    return;
  }
  check(a,
        batched(h, ob.op, oa.op, int(p.n), int(p.m), int(p.k), &alpha, b, ob.ld, p.b.batch_stride, av, oa.ld,
                p.a.batch_stride, &beta, c, int(p.n), p.m * p.n, int(p.batch)),
        f32 ? "cublasSgemmStridedBatched" : "cublasDgemmStridedBatched");
}

}  // namespace

void cuda_gemm(const problem& p) {
  cuda_rt::require();
  if (p.t == dtype::float32 || p.t == dtype::float64) {
    const cublas_api& a = require_cublas();
    if (p.t == dtype::float32)
      blas_gemm<float>(a, a.sgemm, a.sgemm1, p);
    else
      blas_gemm<double>(a, a.dgemm, a.dgemm1, p);
    return;
  }
  if (p.m > i64(65535) * 16) throw value_error("jf::matmul: jf::cuda's integer matmul takes at most 1048560 rows in a");
  if (int code = cuda_matmul::exact_gemm(p, cuda_rt::current_stream()); code != 0)
    throw cuda_error(std::string("jetfuse: the integer matmul kernel failed: ") +
                     cuda_matmul::exact_gemm_error_text(code));
}

}  // namespace jf::detail::matmul_impl
