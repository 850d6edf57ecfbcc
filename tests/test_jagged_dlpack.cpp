// DLPack for jagged arrays and records (jetfuse/jagged_dlpack.hpp) on jf::cpu and jf::cuda: the
// offsets and contents imported without copies (the same addresses), per-list reductions on the
// imported lists equal host sums, every refusal leaves every tensor untouched and with its
// producer, exports keep the memory alive until their deleters run, records round-trip.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <jetfuse/jagged_dlpack.hpp>
#include <jetfuse/jetfuse.hpp>

#include "dlpack_test_util.hpp"
#include "test_support.hpp"

namespace {

using jf_test::dl_dtype;
using jf_test::make_tensor;
using jf_test::tensor_image;

class JaggedDlpack : public ::testing::TestWithParam<jf::device> {
 protected:
  void SetUp() override {
    if (GetParam().kind == jf::device_kind::cuda && !jf::cuda_available())
      GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  }
  jf::device dev() const { return GetParam(); }
  DLDevice dl_device() const { return jf::to_dlpack_device(dev()); }
};

// Random list lengths (Poisson-like, some empty) and offsets starting at `first`.
std::vector<std::int64_t> random_offsets(std::int64_t lists, std::int64_t first) {
  std::vector<std::int64_t> off{first};
  for (std::int64_t i = 0; i < lists; ++i) off.push_back(off.back() + test_support::rand_int(0, 4) * (i % 7 != 3));
  return off;
}

std::vector<float> random_content(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<float>(test_support::rand_int(-1000, 1000)) / 8.0f;
  return v;
}

// A producer's memory: a jetfuse array used only for its allocation on the test's device.
template <class T>
jf::array<T> storage(const std::vector<T>& v, jf::device dev) {
  return jf::array<T>(v, jf::shape_t{static_cast<std::int64_t>(v.size())}, dev);
}

template <class M>
void import_lists_case(jf::device dev, DLDevice dl, std::int64_t lists, std::int64_t first) {
  const std::vector<std::int64_t> off = random_offsets(lists, first);
  const std::vector<float> content = random_content(off.back() + 3);  // content beyond the last list
  jf::array<std::int64_t> off_mem = storage(off, dev);
  jf::array<float> content_mem = storage(content, dev);
  int off_deleted = 0, content_deleted = 0;
  M* to = make_tensor<M>({off_mem.data(), dl, dl_dtype<std::int64_t>(), {lists + 1}}, &off_deleted);
  M* tc = make_tensor<M>({content_mem.data(), dl, dl_dtype<float>(), {static_cast<std::int64_t>(content.size())}},
                         &content_deleted);
  {
    jf::jagged<float> x = jf::jagged_from_dlpack<float>(to, tc);
    EXPECT_EQ(x.backend(), dev);
    EXPECT_EQ(static_cast<const void*>(x.offsets().data()), static_cast<const void*>(off_mem.data()));
    EXPECT_EQ(static_cast<const void*>(x.content().data()), static_cast<const void*>(content_mem.data()));
    EXPECT_EQ(x.size(), lists);
    jf::array<float> sums = jf::sum(x * 2, -1);
    const std::vector<float> got = sums.to_vector();
    ASSERT_EQ(static_cast<std::int64_t>(got.size()), lists);
    for (std::int64_t i = 0; i < lists; ++i) {
      float want = 0;
      for (std::int64_t j = off[i]; j < off[i + 1]; ++j) want += content[j] * 2;  // exact: multiples of 1/4
      EXPECT_EQ(got[i], want) << "list " << i << " (" << lists << " lists from offset " << first << ")";
    }
    EXPECT_EQ(off_deleted + content_deleted, 0);  // x still holds both
  }
  EXPECT_EQ(off_deleted, 1);
  EXPECT_EQ(content_deleted, 1);
}

TEST_P(JaggedDlpack, ImportWithoutCopies) {
  for (std::int64_t lists : {0, 1, 7, 1000, 70001})
    for (std::int64_t first : {0, 5}) {
      import_lists_case<DLManagedTensor>(dev(), dl_device(), lists, first);
      import_lists_case<DLManagedTensorVersioned>(dev(), dl_device(), lists, first);
    }
}

// Awkward's Index32 offsets: widened (a copy of the offsets alone; the content is not copied), and
// the int32 tensor is released once its values were read.
TEST_P(JaggedDlpack, Int32OffsetsAreWidened) {
  const std::vector<std::int32_t> off{2, 2, 5, 6};
  const std::vector<float> content{9, 9, 1, 2, 3, 4};
  jf::array<std::int32_t> off_mem = storage(off, dev());
  jf::array<float> content_mem = storage(content, dev());
  int off_deleted = 0, content_deleted = 0;
  auto* to = make_tensor<DLManagedTensor>({off_mem.data(), dl_device(), dl_dtype<std::int32_t>(), {4}}, &off_deleted);
  auto* tc = make_tensor<DLManagedTensor>({content_mem.data(), dl_device(), dl_dtype<float>(), {6}}, &content_deleted);
  jf::jagged<float> x = jf::jagged_from_dlpack<float>(to, tc);
  EXPECT_EQ(off_deleted, 1);
  EXPECT_EQ(content_deleted, 0);
  EXPECT_EQ(static_cast<const void*>(x.content().data()), static_cast<const void*>(content_mem.data()));
  EXPECT_EQ(x.to_vector(), (std::vector<std::vector<float>>{{}, {1, 2, 3}, {4}}));
}

// Content with a stride of 2 (every other element of the producer's buffer).
TEST_P(JaggedDlpack, StridedContent) {
  const std::vector<std::int64_t> off{0, 2, 2, 3};
  const std::vector<double> mem{1, -1, 2, -1, 3, -1};
  jf::array<std::int64_t> off_mem = storage(off, dev());
  jf::array<double> content_mem = storage(mem, dev());
  int deleted = 0;
  auto* to = make_tensor<DLManagedTensor>({off_mem.data(), dl_device(), dl_dtype<std::int64_t>(), {4}}, &deleted);
  auto* tc = make_tensor<DLManagedTensor>(
      {content_mem.data(), dl_device(), dl_dtype<double>(), {3}, std::vector<std::int64_t>{2}}, &deleted);
  jf::jagged<double> x = jf::jagged_from_dlpack<double>(to, tc);
  EXPECT_EQ(x.to_vector(), (std::vector<std::vector<double>>{{1, 2}, {}, {3}}));
  const jf::option_array<double> mx = jf::max(x * 10, -1);
  EXPECT_EQ(mx.to_vector(), (std::vector<std::optional<double>>{20.0, std::nullopt, 30.0}));
}

// Each refusal: both tensors byte-for-byte as they were, neither deleter called.
TEST_P(JaggedDlpack, RefusalsTakeNothing) {
  jf::array<std::int64_t> good_off = storage(std::vector<std::int64_t>{0, 2, 5}, dev());
  jf::array<std::int64_t> long_off = storage(std::vector<std::int64_t>{0, 2, 9}, dev());
  jf::array<std::int64_t> down_off = storage(std::vector<std::int64_t>{0, 3, 2}, dev());
  jf::array<float> content = storage(random_content(5), dev());
  jf::array<double> wrong = storage(std::vector<double>{1, 2, 3, 4, 5}, dev());
  const DLDevice dl = dl_device();
  struct bad_case {
    const char* what;
    jf_test::tensor_spec off, content;
    std::string message;  // a part of the message
  };
  const std::vector<bad_case> cases{
      {"stop past the content",
       {long_off.data(), dl, dl_dtype<std::int64_t>(), {3}},
       {content.data(), dl, dl_dtype<float>(), {5}},
       "stop[i] > len(content)"},
      {"decreasing offsets",
       {down_off.data(), dl, dl_dtype<std::int64_t>(), {3}},
       {content.data(), dl, dl_dtype<float>(), {5}},
       "start[i] > stop[i]"},
      {"2-d offsets",
       {good_off.data(), dl, dl_dtype<std::int64_t>(), {1, 3}},
       {content.data(), dl, dl_dtype<float>(), {5}},
       "1-dimensional"},
      {"float offsets",
       {content.data(), dl, dl_dtype<float>(), {3}},
       {content.data(), dl, dl_dtype<float>(), {5}},
       "offsets must be int64 or int32"},
      {"2-d content",
       {good_off.data(), dl, dl_dtype<std::int64_t>(), {3}},
       {content.data(), dl, dl_dtype<float>(), {5, 1}},
       "1-dimensional"},
      {"content of another dtype",
       {good_off.data(), dl, dl_dtype<std::int64_t>(), {3}},
       {wrong.data(), dl, dl_dtype<double>(), {5}},
       "holds float64, not float32"},
      {"a device jetfuse cannot use",
       {good_off.data(), dl, dl_dtype<std::int64_t>(), {3}},
       {content.data(), {kDLROCM, 0}, dl_dtype<float>(), {5}},
       "kDLROCM"},
  };
  for (const auto& c : cases) {
    int deleted = 0;
    auto* to = make_tensor<DLManagedTensor>(c.off, &deleted);
    auto* tc = make_tensor<DLManagedTensor>(c.content, &deleted);
    const tensor_image<DLManagedTensor> before_o(to), before_c(tc);
    std::string msg;
    try {
      (void)jf::jagged_from_dlpack<float>(to, tc);
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const jf::error& e) {
      msg = e.what();
    }
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.what << ": " << msg;
    EXPECT_EQ(deleted, 0) << c.what;
    EXPECT_TRUE(tensor_image<DLManagedTensor>(to) == before_o) << c.what;
    EXPECT_TRUE(tensor_image<DLManagedTensor>(tc) == before_c) << c.what;
    to->deleter(to);  // still the caller's
    tc->deleter(tc);
    EXPECT_EQ(deleted, 2) << c.what;
  }
  int deleted = 0;
  auto* to = make_tensor<DLManagedTensor>({good_off.data(), dl, dl_dtype<std::int64_t>(), {3}}, &deleted);
  EXPECT_THROW((void)jf::jagged_from_dlpack<float>(to, nullptr), jf::value_error);
  EXPECT_EQ(deleted, 0);
  to->deleter(to);
}

TEST(JaggedDlpackDevices, OffsetsAndContentOnDifferentDevices) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  jf::array<std::int64_t> off = storage(std::vector<std::int64_t>{0, 1}, jf::cpu);
  jf::array<float> content = storage(std::vector<float>{1}, jf::cuda);
  int deleted = 0;
  auto* to = make_tensor<DLManagedTensor>({off.data(), {kDLCPU, 0}, dl_dtype<std::int64_t>(), {2}}, &deleted);
  auto* tc = make_tensor<DLManagedTensor>({content.data(), {kDLCUDA, 0}, dl_dtype<float>(), {1}}, &deleted);
  EXPECT_THROW((void)jf::jagged_from_dlpack<float>(to, tc), jf::backend_mismatch);
  EXPECT_EQ(deleted, 0);
  to->deleter(to);
  tc->deleter(tc);
}

// jetfuse -> two tensors -> jetfuse: a sliced jagged exports its offsets view; the tensors keep
// the memory after every jetfuse handle went away.
template <class M, class Export>
void export_case(jf::device dev, Export export_fn) {
  const std::vector<std::vector<float>> lists{{1, 2}, {}, {3}, {4, 5, 6}, {}};
  const jf::jagged<float> whole = jf::to_backend(jf::jagged<float>(lists), dev);
  jf::jagged<float> x = whole(jf::range(1, jf::range::none));
  const void* const off_data = x.offsets().data();
  const void* const content_data = x.content().data();
  auto t = export_fn(x);
  ASSERT_NE(t.offsets, nullptr);
  ASSERT_NE(t.content, nullptr);
  EXPECT_EQ(t.offsets->dl_tensor.data, off_data);
  EXPECT_EQ(t.content->dl_tensor.data, content_data);
  EXPECT_EQ(t.offsets->dl_tensor.ndim, 1);
  EXPECT_EQ(t.offsets->dl_tensor.shape[0], 5);
  EXPECT_EQ(t.content->dl_tensor.shape[0], 6);
  EXPECT_EQ(t.offsets->dl_tensor.device.device_type, jf::to_dlpack_device(dev).device_type);
  x = jf::jagged<float>();
  jf::jagged<float> back = jf::jagged_from_dlpack<float>(t.offsets, t.content);
  EXPECT_EQ(static_cast<const void*>(back.content().data()), content_data);
  EXPECT_EQ(back.to_vector(), (std::vector<std::vector<float>>{{}, {3}, {4, 5, 6}, {}}));
}

TEST_P(JaggedDlpack, ExportRoundTrip) {
  export_case<DLManagedTensor>(dev(), [](const jf::jagged<float>& x) { return jf::to_dlpack(x); });
  export_case<DLManagedTensorVersioned>(dev(), [](const jf::jagged<float>& x) { return jf::to_dlpack_versioned(x); });
}

TEST_P(JaggedDlpack, RecordRoundTrip) {
  const jf::jagged<float> pt = jf::to_backend(jf::jagged<float>({{50, 20}, {}, {31}}), dev());
  const jf::jagged<std::int32_t> q = jf::to_backend(jf::jagged<std::int32_t>({{1, -1}, {}, {1}}), dev());
  const jf::jagged_record ev = jf::zip({{"pt", pt}, {"charge", q}});
  jf::dlpack_record r = jf::to_dlpack(ev);
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_EQ(r.fields[0].first, "pt");
  EXPECT_EQ(r.fields[1].first, "charge");
  EXPECT_EQ(r.fields[1].second->dl_tensor.data, static_cast<const void*>(q.content().data()));
  const jf::jagged_record back = jf::record_from_dlpack(r);
  EXPECT_EQ(back.fields(), (std::vector<std::string>{"pt", "charge"}));
  EXPECT_EQ(jf::type_string(back), "3 * var * {pt: float32, charge: int32}");
  EXPECT_EQ(back.field<float>("pt").to_vector(), pt.to_vector());
  EXPECT_EQ(back.field<std::int32_t>("charge").to_vector(), q.to_vector());

  // A repeated name or no field: refused, nothing taken.
  jf::dlpack_record twice = jf::to_dlpack(ev);
  twice.fields[1].first = "pt";
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)jf::record_from_dlpack(twice); }).find("repeated"),
            std::string::npos);
  twice.offsets->deleter(twice.offsets);
  for (auto& f : twice.fields) f.second->deleter(f.second);
  jf::dlpack_record none = jf::to_dlpack(ev);
  for (auto& f : none.fields) f.second->deleter(f.second);
  none.fields.clear();
  EXPECT_THROW((void)jf::record_from_dlpack(none), jf::value_error);
  none.offsets->deleter(none.offsets);
}

INSTANTIATE_TEST_SUITE_P(Backends, JaggedDlpack, ::testing::Values(jf::cpu, jf::cuda),
                         [](const auto& info) { return info.param.kind == jf::device_kind::cuda ? "cuda" : "cpu"; });

}  // namespace
