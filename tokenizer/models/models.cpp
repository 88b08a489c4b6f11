#include <functional>
#include <map>

#include "models.h"

namespace weft::tokenizer {

std::unique_ptr<Model> make_model(const Json& j, const JsonPath& at) {
  using Factory = std::function<std::unique_ptr<Model>(const Json&, const JsonPath&)>;
  static const std::map<std::string, Factory> table = {
      {"BPE", make_bpe},
  };
  if (j.is_null()) fail_at(at, "a tokenizer needs a model");
  const std::string type = j.contains("type") ? string_member(j, "type", at) : "BPE";  // old files omit it for BPE
  const auto it = table.find(type);
  if (it == table.end()) unsupported(at / "type", "the model \"" + type + "\"");
  return it->second(j, at);
}

}  // namespace weft::tokenizer
