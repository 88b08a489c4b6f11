#include "render.h"

#include <cstdio>

namespace weft::token_vm {
namespace {

std::string forced_text(const Workflow& w, const Zone& z, const Tokenizer& tok) {
  return tok.decode(std::span<const Token>(w.token_data.data() + z.token_start, z.token_end - z.token_start));
}

std::string address(const Workflow& w, uint32_t a) {
  if (a == kNone) return "-";
  return a == w.zones.size() ? "DONE" : std::to_string(a);
}

std::string tag_names(const Workflow& w, uint32_t mask) {
  std::string out;
  for (size_t i = 0; i < w.tags.size(); ++i)
    if (mask & (1u << i)) out += (out.empty() ? "" : ",") + w.tags[i];
  return "{" + out + "}";
}

std::string flag_names(uint32_t f) {
  std::string out;
  auto add = [&](uint32_t bit, const char* name) {
    if (f & bit) out += (out.empty() ? "" : ",") + std::string(name);
  };
  add(kAdvanceActive, "advance");
  add(kJumpActive, "jump");
  add(kInput, "input");
  add(kOutput, "output");
  add(kLoopDecision, "loop");
  return out.empty() ? "-" : out;
}

std::string pattern_text(const Workflow& w, uint32_t p) {
  if (p == kNone || p >= w.patterns.size()) return "-";
  const Pattern& pt = w.patterns[p];
  return quote_text(std::string(w.pattern_bytes.begin() + pt.byte_start, w.pattern_bytes.begin() + pt.byte_end));
}

std::string zone_name(const Workflow& w, const Zone& z) {
  const std::string seq = z.sequence < w.sequences.size() ? w.sequences[z.sequence] : std::string("?");
  return seq + "/" + std::to_string(z.block) + "/" + std::to_string(z.zone_in_block);
}

// DOT strings: quotes and backslashes escaped; the quoted text's own escapes stay visible.
std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string quote_text(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string dump_workflow(const Workflow& w, const Tokenizer& tok) {
  std::string out = "zones " + std::to_string(w.zones.size()) + ", forced tokens " + std::to_string(w.token_data.size()) +
                    ", match " + (w.match_mode == MatchMode::Token ? "token" : "byte") + ", pad " +
                    std::to_string(w.pad_token) + "\n";
  for (size_t i = 0; i < w.zones.size(); ++i) {
    const Zone& z = w.zones[i];
    out += "zone " + std::to_string(i) + "  " + zone_name(w, z) + "  forced " + quote_text(forced_text(w, z, tok)) +
           " (" + std::to_string(z.token_end - z.token_start) + " tokens)  next " + address(w, z.next_addr) + "  jump " +
           ((z.flags & kJumpActive) ? address(w, z.jump_addr) : std::string("-")) + "  close " +
           pattern_text(w, z.close_pattern) + "  tags " + tag_names(w, z.tags) + "  flags " + flag_names(z.flags) +
           "  tool " + ((z.flags & kOutput) && z.tool_id < w.tools.size() ? w.tools[z.tool_id] : std::string("-")) +
           "  timeout " + std::to_string(z.timeout);
    if ((z.flags & kLoopDecision) && z.loop < w.loops.size())
      out += "  loop " + std::to_string(z.loop) + " [min " + std::to_string(w.loops[z.loop].min) + ", max " +
             std::to_string(w.loops[z.loop].max) + "]";
    out += "\n";
  }
  out += "patterns:";
  for (size_t p = 0; p < w.patterns.size(); ++p) {
    const std::string role = p == w.control_pattern ? " control" : p == w.escape_open ? " escape-open"
                             : p == w.escape_close ? " escape-close" : "";
    out += "  " + std::to_string(p) + "=" + pattern_text(w, uint32_t(p)) + role + "(" +
           std::to_string(w.patterns[p].token_end - w.patterns[p].token_start) + " tokens)";
  }
  out += "\nextractions:";
  if (w.extractions.empty()) out += " none";
  for (const Extraction& e : w.extractions) out += "  " + e.name + "=" + tag_names(w, e.tags);
  return out + "\n";
}

std::string workflow_dot(const Workflow& w, const Tokenizer& tok) {
  std::string out = "digraph workflow {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (size_t i = 0; i < w.zones.size(); ++i) {
    const Zone& z = w.zones[i];
    std::string text = forced_text(w, z, tok);
    if (text.size() > 60) {  // cut on a UTF-8 character boundary
      size_t cut = 57;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      text = text.substr(0, cut) + "...";
    }
    std::string label = std::to_string(i) + ": " + zone_name(w, z) + "\n" + quote_text(text);
    if (z.flags & kOutput) label += "\noutput -> " + (z.tool_id < w.tools.size() ? w.tools[z.tool_id] : std::string("?"));
    if (z.flags & kInput) label += "\ninput";
    if ((z.flags & kLoopDecision) && z.loop < w.loops.size())
      label += "\nloop " + std::to_string(z.loop) + " [min " + std::to_string(w.loops[z.loop].min) + ", max " +
               std::to_string(w.loops[z.loop].max) + "]";
    std::string escaped;  // line breaks become DOT's \n
    for (char c : dot_escape(label)) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
    out += "  z" + std::to_string(i) + " [label=\"" + escaped + "\"" +
           ((z.flags & kJumpActive) ? ", shape=diamond" : "") + "];\n";
  }
  out += "  done [label=\"DONE\", shape=doublecircle];\n";
  auto node = [&](uint32_t a) { return a == w.zones.size() ? std::string("done") : "z" + std::to_string(a); };
  for (size_t i = 0; i < w.zones.size(); ++i) {
    const Zone& z = w.zones[i];
    if (z.next_addr != kNone) out += "  z" + std::to_string(i) + " -> " + node(z.next_addr) + " [label=\"next\"];\n";
    if ((z.flags & kJumpActive) && z.jump_addr != kNone)
      out += "  z" + std::to_string(i) + " -> " + node(z.jump_addr) + " [label=\"jump\", style=dashed];\n";
  }
  return out + "}\n";
}

}  // namespace weft::token_vm
