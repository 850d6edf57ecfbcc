// The disk cache needs no GPU: the CPU-only build compiles the same unit so its tests run there.
#include "cuda/disk_cache.cpp"  // NOLINT(bugprone-suspicious-include)
