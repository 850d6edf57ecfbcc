# Writes the text of IN as a C++ raw string returned by jf::ir::scalar_ops_source() into OUT.
file(READ "${IN}" text)
file(WRITE "${OUT}" "// Generated from include/jetfuse/scalar_ops.hpp by cmake/embed_text.cmake.\n#include <string_view>\nnamespace jf::ir {\nstd::string_view scalar_ops_source() {\n  return R\"jf_embed(${text})jf_embed\";\n}\n}  // namespace jf::ir\n")
