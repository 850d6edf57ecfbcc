// Awkward Array's printing, ported from awkward/prettyprint.py and highlevel.py (awkward 2.14):
// valuestr_horiz (one line, front and back items alternately until the columns run out),
// valuestr (one item a row), Array.__repr__, Array.show and _repr_mimebundle_, and its Formatter
// (f"{v:.3g}" for floats, str() for integers and bools). The tree walked is the host window that
// jetfuse/awkward_print.hpp gathers from the device; the walk never looks outside it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/detail/awkward_print.hpp"

namespace jf::detail {

namespace {

using strs_t = std::vector<std::string>;

std::int64_t len(const std::string& s) { return static_cast<std::int64_t>(s.size()); }

// Python's math.ceil(n / 2) for any sign.
std::int64_t half(std::int64_t n) { return n >= 0 ? (n + 1) / 2 : -((-n) / 2); }

// prettyprint.alternate(length): (forward, index) pairs, front and back in turn — the first
// 2 * print_edge of them: the walks never look further (the window), and a list may count billions
// of items (the triples of a long list, combinations_print.hpp).
std::vector<std::pair<bool, std::int64_t>> alternate(std::int64_t length) {
  std::vector<std::pair<bool, std::int64_t>> out;
  const std::int64_t h = half(length);
  std::int64_t f = 0, b = length - 1;
  bool going_forward = true, going_backward = true;
  while ((going_forward || going_backward) && static_cast<std::int64_t>(out.size()) < 2 * print_edge) {
    if (going_forward) {
      if (f < h)
        out.emplace_back(true, f++);
      else
        going_forward = false;
    }
    if (going_backward) {
      if (b >= h)
        out.emplace_back(false, b--);
      else
        going_backward = false;
    }
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  const auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// Python's repr() of a str (ASCII escapes; other bytes kept), with its quotes.
std::string py_repr(const std::string& s) {
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\')
      out += "\\\\";
    else if (c == q)
      out += std::string("\\") + q;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else
      out += c;
  }
  return out + q;
}

// json.dumps of a str (ASCII only, as json.dumps' default ensure_ascii for the ASCII range).
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\b')
      out += "\\b";
    else if (c == '\f')
      out += "\\f";
    else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else
      out += c;
  }
  return out + "\"";
}

// A record key as prettyprint writes it: "pt: ", or "'my key': ".
std::string key_str(const std::string& key) { return (is_identifier(key) ? key : py_repr(key)) + ": "; }

std::string joined(const strs_t& v) {
  std::string s;
  for (const auto& x : v) s += x;
  return s;
}

std::pair<std::int64_t, strs_t> valuestr_horiz(const pp_item& data, std::int64_t limit_cols) {
  const std::int64_t original_limit_cols = limit_cols;
  if (data.k == pp_item::kind::list) {
    strs_t front{"["}, back{"]"};
    limit_cols -= 2;
    if (data.length == 0) return {2, {"[", "]"}};
    if (data.length == 1) {
      auto [cols_taken, strs] = valuestr_horiz(data.at(0), limit_cols);
      front.insert(front.end(), strs.begin(), strs.end());
      front.push_back("]");
      return {2 + cols_taken, front};
    }
    limit_cols -= 5;  // anticipate the ", ..."
    std::int64_t which = 0;
    for (const auto& [forward, index] : alternate(data.length)) {
      const pp_item& current = data.at(index);
      if (forward) {
        const std::int64_t for_comma = which == 0 ? 0 : 2;
        auto [cols_taken, strs] = valuestr_horiz(current, limit_cols - for_comma);
        if (limit_cols - (for_comma + cols_taken) >= 0) {
          if (which != 0) {
            front.push_back(", ");
            limit_cols -= 2;
          }
          front.insert(front.end(), strs.begin(), strs.end());
          limit_cols -= cols_taken;
        } else {
          break;
        }
      } else {
        auto [cols_taken, strs] = valuestr_horiz(current, limit_cols - 2);
        if (limit_cols - (2 + cols_taken) >= 0) {
          back.insert(back.begin(), strs.begin(), strs.end());
          back.insert(back.begin(), ", ");
          limit_cols -= 2 + cols_taken;
        } else {
          break;
        }
      }
      ++which;
    }
    if (which == 0) {
      front.push_back("...");
      limit_cols -= 3;
    } else if (which != data.length) {
      front.push_back(", ...");
      limit_cols -= 5;
    }
    limit_cols += 5;  // credit the ", ..."
    front.insert(front.end(), back.begin(), back.end());
    return {original_limit_cols - limit_cols, front};
  }
  if (data.k == pp_item::kind::record || data.k == pp_item::kind::tuple) {
    const bool is_tuple = data.k == pp_item::kind::tuple;
    strs_t front{is_tuple ? "(" : "{"};
    limit_cols -= 2;  // both brackets
    limit_cols -= 5;  // anticipate the ", ..."
    std::int64_t which = 0;
    const auto nfields = static_cast<std::int64_t>(data.fields.size());
    for (const auto& [key, value] : data.fields) {
      const std::int64_t for_comma = which == 0 ? 0 : 2;
      const std::string ks = is_tuple ? std::string() : key_str(key);
      if (limit_cols - (for_comma + len(ks) + 3) >= 0) {
        if (which != 0) {
          front.push_back(", ");
          limit_cols -= 2;
        }
        front.push_back(ks);
        limit_cols -= len(ks);
        ++which;
        const std::int64_t target = nfields == 1 ? limit_cols : half(limit_cols);
        auto [cols_taken, strs] = valuestr_horiz(value, target);
        if (limit_cols - cols_taken >= 0) {
          front.insert(front.end(), strs.begin(), strs.end());
          limit_cols -= cols_taken;
        } else {
          front.push_back("...");
          limit_cols -= 3;
          break;
        }
      } else {
        break;
      }
      ++which;
    }
    if (nfields != 0) {
      if (which == 0) {
        front.push_back("...");
        limit_cols -= 3;
      } else if (which != 2 * nfields) {
        front.push_back(", ...");
        limit_cols -= 5;
      }
    }
    limit_cols += 5;  // credit the ", ..."
    front.push_back(is_tuple ? ")" : "}");
    return {original_limit_cols - limit_cols, front};
  }
  return {len(data.text), {data.text}};
}

std::string bytes_repr(std::int64_t nbytes) {
  const auto grouped = [](const std::string& digits) {  // Python's "," format option
    const auto dot = digits.find('.');
    std::string whole = digits.substr(0, dot), rest = dot == std::string::npos ? "" : digits.substr(dot);
    std::string out;
    for (std::size_t i = 0; i < whole.size(); ++i) {
      if (i != 0 && (whole.size() - i) % 3 == 0) out += ',';
      out += whole[i];
    }
    return out + rest;
  };
  const auto one_decimal = [&](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return grouped(buf);
  };
  const auto b = static_cast<double>(nbytes);
  if (b > 1e9) return one_decimal(b / 1e9) + " GB";
  if (b > 1e6) return one_decimal(b / 1e6) + " MB";
  if (b > 1e3) return one_decimal(b / 1e3) + " kB";
  return grouped(std::to_string(nbytes)) + " B";
}

strs_t split_lines(const std::string& s) {
  strs_t out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const auto nl = s.find('\n', at);
    if (nl == std::string::npos) {
      if (at < s.size()) out.push_back(s.substr(at));
      break;
    }
    out.push_back(s.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

// highlevel_array_show_rows: the value, then the type, nbytes and backend rows asked for.
strs_t show_rows(const pp_item& top, const std::string& type_multiline, std::int64_t nbytes, device dev,
                 const show_options& o) {
  strs_t rows{awkward_valuestr(top, o.limit_rows, o.limit_cols)};
  if (o.type) {
    std::string type_line = "type: " + type_multiline;
    if (len(type_line) > o.limit_cols)
      type_line = type_line.substr(0, static_cast<std::size_t>(o.limit_cols - 3)) + "...";
    rows.push_back(type_line);
  }
  if (o.nbytes) rows.push_back("nbytes: " + bytes_repr(nbytes));
  if (o.backend) rows.push_back("backend: " + awkward_backend_name(dev));
  return rows;
}

std::int64_t prefix_length(const std::string& row) {
  const auto colon = row.find(':');
  return static_cast<std::int64_t>(colon == std::string::npos ? row.size() : colon);
}

}  // namespace

const pp_item& pp_item::at(std::int64_t i) const {
  const auto present = static_cast<std::int64_t>(items.size());
  const std::int64_t back = present - front;
  if (i >= 0 && i < front) return items[static_cast<std::size_t>(i)];
  if (i >= length - back && i < length) return items[static_cast<std::size_t>(front + (i - (length - back)))];
  throw std::logic_error("jetfuse: the printer looked at item " + std::to_string(i) + " of a list of " +
                         std::to_string(length) + " outside the gathered window");
}

std::vector<std::int64_t> window_positions(std::int64_t n, std::int64_t edge) {
  std::vector<std::int64_t> out;
  const std::int64_t f = std::min(n, edge);
  for (std::int64_t i = 0; i < f; ++i) out.push_back(i);
  for (std::int64_t i = std::max(f, n - edge); i < n; ++i) out.push_back(i);
  return out;
}

pp_item window_list(std::int64_t length, std::vector<pp_item> items, std::int64_t edge) {
  pp_item l;
  l.k = pp_item::kind::list;
  l.length = length;
  l.front = std::min(length, edge);
  l.items = std::move(items);
  return l;
}

std::string awkward_number(double v) {
  if (std::isnan(v)) return "nan";  // Python never writes "-nan"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);  // Python's 'g' and C's agree otherwise (inf, -0, e+20)
  return buf;
}
std::string awkward_number(float v) { return awkward_number(static_cast<double>(v)); }
std::string awkward_number(std::int64_t v) { return std::to_string(v); }
std::string awkward_number(std::int32_t v) { return std::to_string(v); }
std::string awkward_number(std::int16_t v) { return std::to_string(v); }
std::string awkward_number(std::int8_t v) { return std::to_string(v); }
std::string awkward_number(std::uint64_t v) { return std::to_string(v); }
std::string awkward_number(std::uint32_t v) { return std::to_string(v); }
std::string awkward_number(std::uint16_t v) { return std::to_string(v); }
std::string awkward_number(std::uint8_t v) { return std::to_string(v); }
std::string awkward_number(bool v) { return v ? "True" : "False"; }

std::vector<pp_item> awkward_numbers(dtype t, const void* elements, std::size_t n) {
  return visit_dtype(t, [&](auto ti) {
    using T = typename decltype(ti)::type;
    std::vector<pp_item> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      T e;
      std::memcpy(&e, static_cast<const char*>(elements) + i * sizeof(T), sizeof(T));
      out.push_back(pp_item::scalar(awkward_number(e)));
    }
    return out;
  });
}

std::string awkward_str(const pp_item& top) { return awkward_valuestr(top, 1, 80); }

std::string awkward_valuestr(const pp_item& data, int limit_rows, int limit_cols) {
  if (limit_rows <= 1 || data.k != pp_item::kind::list) return joined(valuestr_horiz(data, limit_cols).second);
  strs_t front, back;
  std::int64_t which = 0;
  for (const auto& [forward, index] : alternate(data.length)) {
    const std::string s = joined(valuestr_horiz(data.at(index), limit_cols - 2).second);
    if (forward)
      front.push_back(s);
    else
      back.insert(back.begin(), s);
    ++which;
    if (which >= limit_rows) break;
  }
  if (data.length != 0 && which != data.length) back[0] = "...";
  strs_t out = front;
  out.insert(out.end(), back.begin(), back.end());
  std::string text;
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::string val = (i > 0 ? " " : "[") + out[i];
    val += i + 1 < out.size() ? "," : "]";
    text += (i > 0 ? "\n" : "") + val;
  }
  return text;
}

std::string awkward_repr(const pp_item& top, const std::string& type_compact) {
  const std::int64_t limit_cols = 80;
  const std::string pytype = "Array";
  std::string typestr = py_repr(type_compact);
  typestr = typestr.substr(1, typestr.size() - 2);
  const std::int64_t fixed = len(typestr) + len(pytype) + len(" type=''") + 3;
  const std::int64_t strwidth =
      fixed < limit_cols / 2
          ? limit_cols - fixed
          : std::max<std::int64_t>(0, std::min(limit_cols / 2, limit_cols - len(pytype) - len(" type='...'") - 3));
  const std::string valuestr = " " + awkward_valuestr(top, 1, static_cast<int>(strwidth));
  const std::int64_t length = std::max<std::int64_t>(3, limit_cols - len(pytype) - len("type='...'") - len(valuestr));
  if (len(typestr) > length)
    typestr = "'" + typestr.substr(0, static_cast<std::size_t>(length - 3)) + "...'";
  else
    typestr = "'" + typestr + "'";
  return "<" + pytype + valuestr + " type=" + typestr + ">";
}

std::string awkward_show(const pp_item& top, const std::string& type_multiline, std::int64_t nbytes, device dev,
                         const show_options& o) {
  strs_t rows = show_rows(top, type_multiline, nbytes, dev, o);
  const std::string array_line = rows.front();
  rows.erase(rows.begin());
  std::string out;
  if (o.type) {
    out += rows.front() + "\n";
    rows.erase(rows.begin());
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const std::string& a, const std::string& b) { return prefix_length(a) < prefix_length(b); });
  for (const auto& r : rows) out += r + "\n";
  return out + array_line;
}

std::string awkward_display(const pp_item& top, const std::string& type_multiline, std::int64_t nbytes, device dev) {
  strs_t rows = show_rows(top, type_multiline, nbytes, dev, show_options{20, 80, true, true, true});
  strs_t body = split_lines(rows[0]);
  strs_t type_lines = split_lines(rows[1]);
  if (type_lines.size() > 12) {  // the first, ten fields, "...", the last
    const std::string& second = type_lines[1];
    const std::size_t spaces = second.size() - second.substr(second.find_first_not_of(' ')).size();
    strs_t cut(type_lines.begin(), type_lines.begin() + 11);
    cut.push_back(std::string(spaces, ' ') + "...");
    cut.push_back(type_lines.back());
    type_lines = cut;
  }
  strs_t others(rows.begin() + 2, rows.end());
  std::stable_sort(others.begin(), others.end(),
                   [](const std::string& a, const std::string& b) { return prefix_length(a) > prefix_length(b); });
  std::size_t n_cols = 0;
  for (const auto& l : body) n_cols = std::max(n_cols, l.size());
  body.push_back(std::string(n_cols, '-'));
  body.insert(body.end(), others.begin(), others.end());
  body.insert(body.end(), type_lines.begin(), type_lines.end());
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) out += (i ? "\n" : "") + body[i];
  return out;
}

std::string awkward_backend_name(device dev) { return dev.kind == device_kind::cuda ? "cuda" : "cpu"; }

std::string record_type_string(const std::vector<std::pair<std::string, std::string>>& fields, bool compact,
                               const std::string& indent) {
  std::string out = "{";
  if (!compact && !fields.empty()) out += "\n" + indent + "    ";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    out += (is_identifier(fields[i].first) ? fields[i].first : json_string(fields[i].first)) + ": " + fields[i].second;
    if (i + 1 < fields.size()) out += compact ? ", " : ",\n" + indent + "    ";
  }
  if (!compact && !fields.empty()) out += "\n" + indent;
  return out + "}";
}

std::string tuple_type_string(const std::vector<slot_type>& slots, bool compact, const std::string& indent) {
  const std::string inner = indent + "    ";
  std::string out = "(";
  if (!compact && !slots.empty()) out += "\n" + inner;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    out += slots[i].record ? record_type_string(slots[i].fields, compact, inner) : slots[i].dtype;
    if (i + 1 < slots.size()) out += compact ? ", " : ",\n" + inner;
  }
  if (!compact && !slots.empty()) out += "\n" + indent;
  return out + ")";
}

}  // namespace jf::detail
