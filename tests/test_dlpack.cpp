// DLPack on jf::cpu: import (no copy, strides, byte offsets, the deleter called once after the last
// handle), export (views' strides, the buffer kept alive), round trips of every dtype, errors that
// leave the tensor untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include <jetfuse/dlpack.hpp>

#include "dlpack_test_util.hpp"

namespace {

using jf_test::dl_dtype;
using jf_test::make_tensor;
using jf_test::tensor_image;
using jf_test::tensor_spec;

template <class T> T value_at(std::int64_t i) {
  if constexpr (std::is_same_v<T, bool>) return (i % 3) == 1;
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(i) * T(0.5) - T(3);
  else return static_cast<T>(i * 7 - 20);
}

template <class T> std::vector<T> storage_of(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value_at<T>(static_cast<std::int64_t>(i));
  return v;
}

// Element (i, j) of a DLTensor, addressed as a consumer does.
template <class T> T dl_element(const DLTensor& t, std::int64_t i, std::int64_t j) {
  const auto* base = static_cast<const unsigned char*>(t.data) + t.byte_offset;
  const std::int64_t off = i * t.strides[0] + j * t.strides[1];
  T v;
  std::memcpy(&v, base + off * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <class T> class dlpackTyped : public ::testing::Test {};
using element_types = ::testing::Types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                       std::uint16_t, std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(dlpackTyped, element_types);

// A row-major producer tensor (3, 4) imported, read element by element, shared by views and
// copies of the handle, and released exactly once after the last of them.
template <class T, class M> void import_contiguous() {
  // The producer's memory (std::vector<bool> has no data(): bytes for every T).
  std::vector<unsigned char> bytes(12 * sizeof(T));
  for (std::int64_t i = 0; i < 12; ++i) {
    const T v = value_at<T>(i);
    std::memcpy(bytes.data() + i * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
  }
  int deletions = 0;
  M* t = make_tensor<M>({bytes.data(), {kDLCPU, 0}, dl_dtype<T>(), {3, 4}}, &deletions);
  {
    jf::array<T> a = jf::from_dlpack<T>(t);
    EXPECT_EQ(static_cast<const void*>(a.data()), bytes.data());  // no copy
    EXPECT_EQ(a.shape(), (jf::shape_t{3, 4}));
    EXPECT_EQ(a.strides(), (jf::strides_t{4, 1}));
    EXPECT_EQ(a.device(), jf::cpu);
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 4; ++j) EXPECT_EQ(T(a(i, j)), value_at<T>(i * 4 + j)) << i << "," << j;
    jf::array<T> view = a(jf::all, jf::range(1, 3));
    {
      jf::array<T> copy = a;
      a = jf::array<T>();
    }
    EXPECT_EQ(deletions, 0);  // the view still holds it
    view(1, 0) = value_at<T>(100);  // writes land in the producer's memory
    T written;
    std::memcpy(&written, bytes.data() + (1 * 4 + 1) * sizeof(T), sizeof(T));
    EXPECT_EQ(written, value_at<T>(100));
  }
  EXPECT_EQ(deletions, 1);
}

TYPED_TEST(dlpackTyped, ImportContiguous) { import_contiguous<TypeParam, DLManagedTensor>(); }
TYPED_TEST(dlpackTyped, ImportContiguousVersioned) { import_contiguous<TypeParam, DLManagedTensorVersioned>(); }

// jetfuse -> DLPack -> jetfuse, for each dtype and both structs: the same memory, the same values;
// the exported tensor keeps the buffer alive after every jetfuse handle went away.
template <class T, class M> void round_trip(M* (*export_fn)(const jf::array_base&)) {
  const std::vector<T> values = storage_of<T>(6);
  jf::array<T> a(values, jf::shape_t{2, 3});
  const void* const data = a.data();
  M* t = export_fn(a);
  ASSERT_NE(t, nullptr);
  const DLTensor& dl = t->dl_tensor;
  EXPECT_EQ(dl.data, data);
  EXPECT_EQ(dl.byte_offset, 0u);
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.device.device_id, 0);
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.shape[0], 2);
  EXPECT_EQ(dl.shape[1], 3);
  ASSERT_NE(dl.strides, nullptr);
  EXPECT_EQ(dl.strides[0], 3);
  EXPECT_EQ(dl.strides[1], 1);
  EXPECT_EQ(dl.dtype.code, dl_dtype<T>().code);
  EXPECT_EQ(dl.dtype.bits, 8 * sizeof(T));
  EXPECT_EQ(dl.dtype.lanes, 1);
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    EXPECT_EQ(t->version.major, 1u);
    EXPECT_EQ(t->version.minor, 1u);
    EXPECT_EQ(t->flags, 0u);
  }
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(dl_element<T>(dl, i, j), values[i * 3 + j]);
  a = jf::array<T>();  // the exported tensor alone keeps the memory now
  jf::array<T> b = jf::from_dlpack<T>(t);
  EXPECT_EQ(static_cast<const void*>(b.data()), data);
  EXPECT_EQ(b.to_vector(), values);
}

TYPED_TEST(dlpackTyped, RoundTrip) { round_trip<TypeParam, DLManagedTensor>(&jf::to_dlpack); }
TYPED_TEST(dlpackTyped, RoundTripVersioned) { round_trip<TypeParam, DLManagedTensorVersioned>(&jf::to_dlpack_versioned); }

TYPED_TEST(dlpackTyped, RunTimeDtype) {
  using T = TypeParam;
  std::vector<unsigned char> bytes(5 * sizeof(T));
  int deletions = 0;
  auto* t = make_tensor<DLManagedTensor>({bytes.data(), {kDLCPU, 0}, dl_dtype<T>(), {5}}, &deletions);
  {
    jf::array_base a = jf::from_dlpack(t);
    EXPECT_EQ(a.dtype(), jf::dtype_v<T>);
    EXPECT_EQ(a.raw_data(), bytes.data());
    EXPECT_EQ(jf::array<T>(a).size(), 5);
  }
  EXPECT_EQ(deletions, 1);
}

TYPED_TEST(dlpackTyped, WrongDtypeLeavesTheTensorUntouched) {
  using T = TypeParam;
  using Other = std::conditional_t<std::is_same_v<T, double>, float, double>;
  std::vector<unsigned char> bytes(4 * 8);
  int deletions = 0;
  auto* t = make_tensor<DLManagedTensorVersioned>({bytes.data(), {kDLCPU, 0}, dl_dtype<Other>(), {4}}, &deletions);
  const tensor_image<DLManagedTensorVersioned> before(t);
  EXPECT_THROW(jf::from_dlpack<T>(t), jf::dtype_error);
  EXPECT_EQ(deletions, 0);
  EXPECT_TRUE(tensor_image<DLManagedTensorVersioned>(t) == before);
  t->deleter(t);  // still the caller's
  EXPECT_EQ(deletions, 1);
}

// ---- shapes ---------------------------------------------------------------------------------

TEST(dlpack, ZeroDimensional) {
  double x = 2.5;
  int deletions = 0;
  auto* t = make_tensor<DLManagedTensor>({&x, {kDLCPU, 0}, dl_dtype<double>(), {}}, &deletions);
  {
    jf::array<double> a = jf::from_dlpack<double>(t);
    EXPECT_EQ(a.ndim(), 0);
    EXPECT_EQ(a.size(), 1);
    EXPECT_EQ(a.data(), &x);
    EXPECT_EQ(a.item(), 2.5);
    DLManagedTensor* e = jf::to_dlpack(a);
    EXPECT_EQ(e->dl_tensor.ndim, 0);
    EXPECT_EQ(e->dl_tensor.data, &x);
    a = jf::array<double>();
    EXPECT_EQ(deletions, 0);
    e->deleter(e);
  }
  EXPECT_EQ(deletions, 1);
}

TEST(dlpack, Empty) {
  int deletions = 0;
  // A producer may pass NULL data for a tensor without elements.
  auto* t = make_tensor<DLManagedTensorVersioned>({nullptr, {kDLCPU, 0}, dl_dtype<float>(), {0, 3}}, &deletions);
  {
    jf::array<float> a = jf::from_dlpack<float>(t);
    EXPECT_EQ(a.shape(), (jf::shape_t{0, 3}));
    EXPECT_EQ(a.size(), 0);
    EXPECT_TRUE(a.to_vector().empty());
  }
  EXPECT_EQ(deletions, 1);
  jf::array<std::int64_t> z = jf::zeros<std::int64_t>({2, 0});
  DLManagedTensorVersioned* e = jf::to_dlpack_versioned(z);
  EXPECT_EQ(e->dl_tensor.data, nullptr);  // the spec: NULL for a tensor without elements
  EXPECT_EQ(e->dl_tensor.shape[0], 2);
  EXPECT_EQ(e->dl_tensor.shape[1], 0);
  jf::array<std::int64_t> back = jf::from_dlpack<std::int64_t>(e);
  EXPECT_EQ(back.shape(), (jf::shape_t{2, 0}));
}

TEST(dlpack, SizeOne) {
  std::int32_t x[1] = {42};
  int deletions = 0;
  // A length-1 axis with a meaningless stride.
  auto* t = make_tensor<DLManagedTensor>({x, {kDLCPU, 0}, dl_dtype<std::int32_t>(), {1, 1}, {{123456, -99}}}, &deletions);
  {
    jf::array<std::int32_t> a = jf::from_dlpack<std::int32_t>(t);
    EXPECT_EQ(a.item(), 42);
    EXPECT_EQ(a.data(), x);
  }
  EXPECT_EQ(deletions, 1);
}

// ---- strides and offsets on import ----------------------------------------------------------

TEST(dlpack, ImportStepsAndByteOffset) {
  std::vector<double> m = storage_of<double>(24);  // a (4, 6) producer array
  int deletions = 0;
  // m[1::2, 1::2]: shape (2, 3), strides (12, 2), the first element at byte offset 7 * 8.
  auto* t = make_tensor<DLManagedTensor>({m.data(), {kDLCPU, 0}, dl_dtype<double>(), {2, 3}, {{12, 2}}, 7 * 8}, &deletions);
  {
    jf::array<double> a = jf::from_dlpack<double>(t);
    EXPECT_EQ(a.data(), m.data() + 7);
    EXPECT_EQ(a.strides(), (jf::strides_t{12, 2}));
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), m[(1 + 2 * i) * 6 + 1 + 2 * j]);
    EXPECT_FALSE(a.is_contiguous());
    a(1, 2) = -1.0;
    EXPECT_EQ(m[3 * 6 + 5], -1.0);
  }
  EXPECT_EQ(deletions, 1);
}

TEST(dlpack, ImportNegativeAndZeroStrides) {
  std::vector<std::int64_t> v = storage_of<std::int64_t>(12);  // a (3, 4) producer array
  int deletions = 0;
  // v[::-1, ::-1] as a producer exports it: data at the base, byte_offset at the last element.
  auto* t = make_tensor<DLManagedTensorVersioned>(
      {v.data(), {kDLCPU, 0}, dl_dtype<std::int64_t>(), {3, 4}, {{-4, -1}}, 11 * 8}, &deletions);
  {
    jf::array<std::int64_t> a = jf::from_dlpack<std::int64_t>(t);
    EXPECT_EQ(a.data(), v.data() + 11);
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 4; ++j) EXPECT_EQ(a(i, j), v[(2 - i) * 4 + 3 - j]);
    std::vector<std::int64_t> want(v.rbegin(), v.rend());
    EXPECT_EQ(a.to_vector(), want);
    // Exported again: the same element 0 and the same strides.
    DLManagedTensor* e = jf::to_dlpack(a(jf::range(1, 3), jf::all));
    EXPECT_EQ(e->dl_tensor.data, v.data() + 7);
    EXPECT_EQ(e->dl_tensor.strides[0], -4);
    EXPECT_EQ(e->dl_tensor.strides[1], -1);
    EXPECT_EQ(dl_element<std::int64_t>(e->dl_tensor, 1, 3), v[0]);
    a = jf::array<std::int64_t>();
    EXPECT_EQ(deletions, 0);
    e->deleter(e);
  }
  EXPECT_EQ(deletions, 1);

  // A stride of 0: a row broadcast to (3, 4) (numpy's broadcast_to), read-only use.
  float row[4] = {1, 2, 3, 4};
  auto* b = make_tensor<DLManagedTensor>({row, {kDLCPU, 0}, dl_dtype<float>(), {3, 4}, {{0, 1}}}, &deletions);
  jf::array<float> br = jf::from_dlpack<float>(b);
  EXPECT_EQ(br.to_vector(), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(br.copy().to_vector(), br.to_vector());
  br = jf::array<float>();
  EXPECT_EQ(deletions, 2);
}

TEST(dlpack, ImportTransposedAndColumnMajor) {
  std::vector<float> m = storage_of<float>(6);
  int deletions = 0;
  // A Fortran-order (2, 3) producer array: strides (1, 2).
  auto* t = make_tensor<DLManagedTensor>({m.data(), {kDLCPU, 0}, dl_dtype<float>(), {2, 3}, {{1, 2}}}, &deletions);
  jf::array<float> a = jf::from_dlpack<float>(t);
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), m[j * 2 + i]);
  EXPECT_EQ(a.transpose().to_vector(), m);
  EXPECT_TRUE(a.transpose().is_contiguous());
  a = jf::array<float>();
  EXPECT_EQ(deletions, 1);
}

// ---- views on export ------------------------------------------------------------------------

TEST(dlpack, ExportViews) {
  std::vector<double> values = storage_of<double>(20);
  jf::array<double> x(values, jf::shape_t{4, 5});
  struct view_case {
    const char* what;
    jf::array<double> v;
  };
  const view_case cases[] = {
      {"x[::2, ::-1]", x(jf::range(jf::none, jf::none, 2), jf::range(jf::none, jf::none, -1))},
      {"x.T", x.transpose()},
      {"x[1:3, 1::3]", x(jf::range(1, 3), jf::range(1, jf::none, 3))},
      {"x.T[::-1, 1:]", x.transpose()(jf::range(jf::none, jf::none, -1), jf::range(1, jf::none))},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    DLManagedTensorVersioned* t = jf::to_dlpack_versioned(c.v);
    const DLTensor& dl = t->dl_tensor;
    EXPECT_EQ(dl.data, c.v.data());
    EXPECT_EQ(dl.byte_offset, 0u);
    ASSERT_EQ(dl.ndim, 2);
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(dl.shape[k], c.v.shape()[k]);
      EXPECT_EQ(dl.strides[k], c.v.strides()[k]);
    }
    for (std::int64_t i = 0; i < c.v.shape()[0]; ++i)
      for (std::int64_t j = 0; j < c.v.shape()[1]; ++j) EXPECT_EQ(dl_element<double>(dl, i, j), c.v(i, j));
    // And back: the same view.
    jf::array<double> back = jf::from_dlpack<double>(t);
    EXPECT_EQ(back.data(), c.v.data());
    EXPECT_EQ(back.strides(), c.v.strides());
    EXPECT_EQ(back.to_vector(), c.v.to_vector());
  }
  // Writes through a re-imported view land in x.
  jf::array<double> col = jf::from_dlpack<double>(jf::to_dlpack(x(jf::all, 2)));
  col(3) = 1000.0;
  EXPECT_EQ(x(3, 2), 1000.0);
}

TEST(dlpack, ExportedTensorKeepsTheBufferAlive) {
  int deletions = 0;
  std::vector<double> host = storage_of<double>(8);
  auto* t = make_tensor<DLManagedTensor>({host.data(), {kDLCPU, 0}, dl_dtype<double>(), {8}}, &deletions);
  DLManagedTensor* e1 = nullptr;
  DLManagedTensorVersioned* e2 = nullptr;
  {
    jf::array<double> a = jf::from_dlpack<double>(t);
    e1 = jf::to_dlpack(a);
    e2 = jf::to_dlpack_versioned(a(jf::range(2, 6)));
  }
  EXPECT_EQ(deletions, 0);
  EXPECT_EQ(static_cast<double*>(e2->dl_tensor.data)[0], host[2]);
  e1->deleter(e1);
  EXPECT_EQ(deletions, 0);  // e2 still holds it
  e2->deleter(e2);
  EXPECT_EQ(deletions, 1);
}

// ---- errors -----------------------------------------------------------------------------------

template <class M, class E> void expect_rejected(const tensor_spec& s, const char* what) {
  SCOPED_TRACE(what);
  int deletions = 0;
  M* t = make_tensor<M>(s, &deletions);
  const tensor_image<M> before(t);
  EXPECT_THROW(jf::from_dlpack(t), E);
  EXPECT_THROW(jf::from_dlpack<double>(t), E);
  EXPECT_EQ(deletions, 0);
  EXPECT_TRUE(tensor_image<M>(t) == before);
  t->deleter(t);
  EXPECT_EQ(deletions, 1);
}

template <class M> void rejected_tensors() {
  static double d[16] = {};
  const DLDataType f64 = dl_dtype<double>();
  for (DLDeviceType dev : {kDLCUDAHost, kDLCUDAManaged, kDLROCM, kDLROCMHost, kDLOpenCL, kDLVulkan, kDLMetal, kDLOneAPI})
    expect_rejected<M, jf::value_error>({d, {dev, 0}, f64, {4}}, "device type");
  if (!jf::cuda_available()) expect_rejected<M, jf::no_device>({d, {kDLCUDA, 0}, f64, {4}}, "kDLCUDA without a GPU");
  expect_rejected<M, jf::no_device>({d, {kDLCUDA, 1}, f64, {4}}, "cuda:1");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLFloat), 64, 2}, {4}}, "lanes");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLFloat), 16, 1}, {4}}, "float16");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLUInt), 128, 1}, {4}}, "uint128");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLInt), 4, 1}, {4}}, "int4");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLComplex), 128, 1}, {4}}, "complex");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLBfloat), 16, 1}, {4}}, "bfloat16");
  expect_rejected<M, jf::dtype_error>({d, {kDLCPU, 0}, {static_cast<std::uint8_t>(kDLBool), 1, 1}, {4}}, "1-bit bool");
  expect_rejected<M, jf::shape_error>({d, {kDLCPU, 0}, f64, {1, 1, 1, 1, 1, 1, 1, 1, 1}}, "9 dimensions");
  expect_rejected<M, jf::shape_error>({d, {kDLCPU, 0}, f64, {2, -1}}, "negative extent");
  expect_rejected<M, jf::shape_error>({d, {kDLCPU, 0}, f64, {1LL << 40, 1LL << 40}}, "too big");
  expect_rejected<M, jf::shape_error>({d, {kDLCPU, 0}, f64, {3, 2}, {{INT64_MAX / 2, 1}}}, "span overflow");
  expect_rejected<M, jf::value_error>({nullptr, {kDLCPU, 0}, f64, {4}}, "NULL data");
  expect_rejected<M, jf::value_error>({d, {kDLCPU, 0}, f64, {4}, std::nullopt, 4}, "misaligned byte_offset");
  expect_rejected<M, jf::shape_error>({reinterpret_cast<void*>(16), {kDLCPU, 0}, f64, {4}, {{-1}}, 0},
                                      "a negative stride below address 0");
}

TEST(dlpack, Rejected) { rejected_tensors<DLManagedTensor>(); }
TEST(dlpack, RejectedVersioned) { rejected_tensors<DLManagedTensorVersioned>(); }

TEST(dlpack, NullTensorsAndHandles) {
  EXPECT_THROW(jf::from_dlpack(static_cast<DLManagedTensor*>(nullptr)), jf::value_error);
  EXPECT_THROW(jf::from_dlpack<float>(static_cast<DLManagedTensorVersioned*>(nullptr)), jf::value_error);
  EXPECT_THROW(jf::to_dlpack(jf::array<double>()), jf::value_error);
  EXPECT_THROW(jf::to_dlpack_versioned(jf::array<bool>()), jf::value_error);
}

TEST(dlpack, VersionAndReadOnly) {
  double d[4] = {1, 2, 3, 4};
  int deletions = 0;
  auto* t = make_tensor<DLManagedTensorVersioned>({d, {kDLCPU, 0}, dl_dtype<double>(), {4}}, &deletions);
  t->version.major = 2;  // another ABI: nothing but the deleter may be used
  EXPECT_THROW(jf::from_dlpack<double>(t), jf::value_error);
  t->version = {1, 7};  // a newer minor version is fine
  t->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  const tensor_image<DLManagedTensorVersioned> before(t);
  EXPECT_THROW(jf::from_dlpack<double>(t), jf::value_error);
  EXPECT_THROW(jf::from_dlpack(t), jf::value_error);
  EXPECT_TRUE(tensor_image<DLManagedTensorVersioned>(t) == before);
  EXPECT_EQ(deletions, 0);
  {
    jf::array<double> a = jf::from_dlpack<double>(t, jf::dlpack_read_only::accept);
    EXPECT_EQ(a.to_vector(), (std::vector<double>{1, 2, 3, 4}));
  }
  EXPECT_EQ(deletions, 1);
}

TEST(dlpack, NullDeleterIsAllowed) {
  float f[2] = {1, 2};
  int deletions = 0;
  auto* t = make_tensor<DLManagedTensor>({f, {kDLCPU, 0}, dl_dtype<float>(), {2}}, &deletions);
  DLManagedTensor copy = *t;
  copy.deleter = nullptr;  // a producer that keeps owning everything
  { jf::array<float> a = jf::from_dlpack<float>(&copy); EXPECT_EQ(a.to_vector(), (std::vector<float>{1, 2})); }
  EXPECT_EQ(deletions, 0);
  t->deleter(t);
}

TEST(dlpack, Mappings) {
  for (int k = 0; k < jf::num_dtypes; ++k) {
    const auto d = static_cast<jf::dtype>(k);
    EXPECT_EQ(jf::from_dlpack_dtype(jf::to_dlpack_dtype(d)), d);
  }
  EXPECT_EQ(jf::to_dlpack_dtype(jf::dtype::bool_).code, kDLBool);
  EXPECT_EQ(jf::to_dlpack_dtype(jf::dtype::bool_).bits, 8);
  // DLPack's codes and widths, as numpy's __dlpack__ writes them (np.dtype(t).kind / itemsize).
  const std::pair<jf::dtype, std::pair<int, int>> codes[] = {
      {jf::dtype::int8, {kDLInt, 8}},     {jf::dtype::int16, {kDLInt, 16}},    {jf::dtype::int32, {kDLInt, 32}},
      {jf::dtype::int64, {kDLInt, 64}},   {jf::dtype::uint8, {kDLUInt, 8}},    {jf::dtype::uint16, {kDLUInt, 16}},
      {jf::dtype::uint32, {kDLUInt, 32}}, {jf::dtype::uint64, {kDLUInt, 64}},  {jf::dtype::float32, {kDLFloat, 32}},
      {jf::dtype::float64, {kDLFloat, 64}}};
  for (const auto& [d, cb] : codes) {
    EXPECT_EQ(jf::to_dlpack_dtype(d).code, cb.first) << jf::name(d);
    EXPECT_EQ(jf::to_dlpack_dtype(d).bits, cb.second) << jf::name(d);
    EXPECT_EQ(jf::to_dlpack_dtype(d).lanes, 1) << jf::name(d);
  }
  EXPECT_EQ(jf::to_dlpack_device(jf::cuda).device_type, kDLCUDA);
  EXPECT_EQ((jf::from_dlpack_device({kDLCUDA, 3})), (jf::device{jf::device_kind::cuda, 3}));
  EXPECT_EQ(jf::from_dlpack_device({kDLCPU, 0}), jf::cpu);
}

}  // namespace
