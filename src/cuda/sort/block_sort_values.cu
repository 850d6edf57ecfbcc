// block_sort_rows.cuh's kernels for the sorted values (device_sort.hpp: block_sort_rows).
#include "cuda/sort/block_sort_rows.cuh"

namespace jf::cuda_sort {

int block_sort_rows(dtype t, const view& in, const view& out, i64 rows, i64 row, void* stream) {
  return block_rows::sort_rows<false>(t, in, out, rows, row, stream);
}

}  // namespace jf::cuda_sort
