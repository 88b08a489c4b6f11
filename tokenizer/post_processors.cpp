// Post-processors: the special tokens added around one encoded sequence when the caller asks
// for them (BOS/EOS, [CLS]/[SEP]). Pairs of sequences are not part of Weft's API.
#include <functional>
#include <map>

#include "pipeline.h"

namespace weft::tokenizer {
namespace {

class Template final : public PostProcessor {
 public:
  // One item: the sequence itself (`ids` empty) or a special token's ids.
  struct Item {
    bool sequence;
    std::vector<TokenId> ids;
  };
  explicit Template(std::vector<Item> single) : single_(std::move(single)) {}
  std::vector<TokenId> process(std::vector<TokenId> ids) const override {
    std::vector<TokenId> out;
    for (const Item& item : single_) {
      if (item.sequence) out.insert(out.end(), ids.begin(), ids.end());
      else out.insert(out.end(), item.ids.begin(), item.ids.end());
    }
    return out;
  }

 private:
  std::vector<Item> single_;
};

class Surround final : public PostProcessor {  // BertProcessing and RobertaProcessing: cls A sep
 public:
  Surround(TokenId cls, TokenId sep) : cls_(cls), sep_(sep) {}
  std::vector<TokenId> process(std::vector<TokenId> ids) const override {
    ids.insert(ids.begin(), cls_);
    ids.push_back(sep_);
    return ids;
  }

 private:
  TokenId cls_, sep_;
};

class Identity final : public PostProcessor {  // ByteLevel: only offsets change
 public:
  std::vector<TokenId> process(std::vector<TokenId> ids) const override { return ids; }
};

class Sequence final : public PostProcessor {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PostProcessor>> steps) : steps_(std::move(steps)) {}
  std::vector<TokenId> process(std::vector<TokenId> ids) const override {
    for (const auto& s : steps_) ids = s->process(std::move(ids));
    return ids;
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

std::vector<Template::Item> template_items(const Json& j, const JsonPath& at) {
  const Json& single = member(j, "single", at);
  if (!single.is_array()) fail_at(at / "single", "expected an array of template pieces");
  const Json& specials = j.contains("special_tokens") ? j["special_tokens"] : Json::object();
  std::vector<Template::Item> items;
  for (size_t i = 0; i < single.size(); ++i) {
    const JsonPath here = (at / "single")[i];
    const Json& piece = single[i];
    if (piece.contains("Sequence")) {
      if (string_member(piece["Sequence"], "id", here / "Sequence") != "A") fail_at(here, "a single-sequence template can only name A");
      items.push_back({true, {}});
      continue;
    }
    if (!piece.contains("SpecialToken")) unsupported(here, "a template piece other than Sequence or SpecialToken");
    const std::string name = string_member(piece["SpecialToken"], "id", here / "SpecialToken");
    if (!specials.contains(name)) fail_at(here, "the special token \"" + name + "\" is not in special_tokens");
    const Json& ids = member(specials[name], "ids", at / "special_tokens" / name);
    Template::Item item{false, {}};
    for (const Json& id : ids) {
      if (!id.is_number_unsigned()) fail_at(at / "special_tokens" / name / "ids", "expected token ids");
      item.ids.push_back(TokenId(id.get<uint64_t>()));
    }
    items.push_back(std::move(item));
  }
  return items;
}

TokenId pair_id(const Json& j, const char* key, const JsonPath& at) {
  const Json& v = member(j, key, at);
  if (!v.is_array() || v.size() != 2 || !v[1].is_number_unsigned()) fail_at(at / key, "expected [token, id]");
  return TokenId(v[1].get<uint64_t>());
}

}  // namespace

std::unique_ptr<PostProcessor> make_post_processor(const Json& j, const JsonPath& at) {
  if (j.is_null()) return nullptr;
  const std::string type = string_member(j, "type", at);
  if (type == "TemplateProcessing") return std::make_unique<Template>(template_items(j, at));
  if (type == "ByteLevel") return std::make_unique<Identity>();
  if (type == "BertProcessing" || type == "RobertaProcessing")
    return std::make_unique<Surround>(pair_id(j, "cls", at), pair_id(j, "sep", at));
  if (type == "Sequence") {
    const Json& list = member(j, "processors", at);
    if (!list.is_array()) fail_at(at / "processors", "expected an array");
    std::vector<std::unique_ptr<PostProcessor>> steps;
    for (size_t i = 0; i < list.size(); ++i)
      if (auto p = make_post_processor(list[i], (at / "processors")[i])) steps.push_back(std::move(p));
    return std::make_unique<Sequence>(std::move(steps));
  }
  unsupported(at / "type", "the post-processor \"" + type + "\"");
}

}  // namespace weft::tokenizer
