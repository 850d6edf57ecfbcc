// The non-template part of the Eigen evaluator: how every operand of one evaluation is addressed
// (src/cpu/eval_plan.cpp). Kept out of the per-expression templates for compile time.
#pragma once

#include <cstdint>
#include <vector>

#include "jetfuse/array.hpp"

namespace jf::cpu_eval {

// One array operand (a leaf or the output).
struct operand_access {
  char* base = nullptr;      // flat plan: element 0; indexed plan: the lowest element addressed
  std::int64_t extent = 0;   // indexed plan: elements from base the offsets reach
  int table = 0;             // indexed plan: which offset table addresses it
};

struct eval_plan {
  std::int64_t n = 0;        // elements of the iteration space
  shape_t iter;
  // flat: every leaf and the output are contiguous on the iteration space, so block [s, s+l) of
  // each is base + s (Eigen Maps). Otherwise every operand is an Eigen indexed view through an
  // offset table (one per distinct effective-stride pattern, shared by the operands that have it).
  bool flat = true;
  operand_access out;
  std::vector<operand_access> leaves;
  std::vector<strides_t> tables;          // effective strides of each table
  std::vector<std::int64_t> table_shift;  // added to every offset so that the lowest is 0
};

// Elements per block of the indexed plan (offset tables are computed one block at a time).
inline constexpr std::int64_t block_elements = 2048;
// No parallel chunk is smaller than this (threads are not worth it for less).
inline constexpr std::int64_t min_chunk_elements = 64 * 1024;

void make_plan(eval_plan& p, const array_base* const* leaves, int nleaves, const array_base& out);

// Fills the offset tables of elements [start, start + len) (len <= block_elements): table t at
// dst + t * block_elements.
void fill_offsets(const eval_plan& p, std::int64_t start, std::int64_t len, std::int64_t* dst);

// dst[...] = src with numpy's casts (jf_cast); src has dst's shape and is contiguous.
void cast_into(const array_base& dst, const array_base& src);

}  // namespace jf::cpu_eval
