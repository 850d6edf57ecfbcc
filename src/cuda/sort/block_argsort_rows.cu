// block_sort_rows.cuh's kernels for the stable positions (device_sort.hpp: block_argsort_rows).
#include "cuda/sort/block_sort_rows.cuh"

namespace jf::cuda_sort {

int block_argsort_rows(dtype t, const view& in, const view& out, i64 rows, i64 row, void* stream) {
  return block_rows::sort_rows<true>(t, in, out, rows, row, stream);
}

}  // namespace jf::cuda_sort
