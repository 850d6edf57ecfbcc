// The registry of user-defined element functions (detail/user_functions.hpp).
#include "jetfuse/detail/user_functions.hpp"

#include <cctype>
#include <deque>
#include <mutex>

#include "jetfuse/errors.hpp"

namespace jf::detail {
namespace {

struct registry {
  std::mutex mutex;
  std::deque<user_function> functions;  // stable addresses: executors keep pointers
};
registry& the_registry() {
  static auto* r = new registry;  // never destroyed: kernels may be built during static destruction
  return *r;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

std::int64_t register_user_function(user_function f) {
  if (!is_identifier(f.name))
    throw value_error("jf::elementwise: the name \"" + f.name + "\" is not an identifier (letters, digits and _)");
  if (f.arity < 1 || f.arity > 3) throw value_error("jf::elementwise: 1 to 3 arguments, not " + std::to_string(f.arity));
  if (!f.cpu) throw value_error("jf::elementwise: \"" + f.name + "\" needs a host callable (the CPU reference)");
  registry& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions.push_back(std::move(f));
  return static_cast<std::int64_t>(r.functions.size() - 1);
}

const user_function& user_function_at(std::int64_t id) {
  registry& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (id < 0 || static_cast<std::size_t>(id) >= r.functions.size())
    throw error("jetfuse: internal: no user function #" + std::to_string(id));
  return r.functions[static_cast<std::size_t>(id)];
}

}  // namespace jf::detail
