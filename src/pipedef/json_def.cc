// Copyright 2026 The inflow Authors.
//
// A PipelineDef to and from its JSON file. Only the form is checked here
// (fields, types, attribute values); what the steps mean is the Build
// functions' business.

#include <unistd.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/status.h"
#include "inflow/ops/op_library.h"
#include "inflow/pipedef/pipeline_def.h"

#include "io/atomic_publish.h"
#include "pipedef/step_attrs.h"

namespace inflow::pipedef {

namespace {

using Json = nlohmann::ordered_json;

Json AttrToJson(const ops::AttrValue& v) {
  switch (v.type()) {
    case ops::AttrType::kInt:
      return *v.get_if<int64_t>();
    case ops::AttrType::kFloat:
      return *v.get_if<double>();
    case ops::AttrType::kBool:
      return *v.get_if<bool>();
    case ops::AttrType::kString:
      return *v.get_if<std::string>();
    case ops::AttrType::kType:
      return std::string(DTypeName(*v.get_if<DType>()));
    case ops::AttrType::kIntList:
      return *v.get_if<std::vector<int64_t>>();
    case ops::AttrType::kFloatList:
      return *v.get_if<std::vector<double>>();
    case ops::AttrType::kStringList:
      return *v.get_if<std::vector<std::string>>();
  }
  return nullptr;
}

Json MapToJson(const ops::AttrMap& attrs) {
  Json out = Json::object();
  for (const auto& [name, value] : attrs.values()) {
    out[name] = AttrToJson(value);
  }
  return out;
}

const char* KindOfJson(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "a list";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an int";
    case Json::value_t::number_float:
      return "a float";
    default:
      return "something else";
  }
}

// Reads one JSON document into a PipelineDef, naming `source` and the JSON
// path of whatever is wrong.
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  Result<PipelineDef> Read(const Json& root) {
    if (!root.is_object()) {
      return Error("$",
                   std::string("must be an object, got ") + KindOfJson(root));
    }
    PipelineDef def;
    def.source = std::string(source_);
    bool have_version = false, have_steps = false;
    for (const auto& [key, value] : root.items()) {
      const std::string path = "$." + key;
      if (key == "version") {
        if (!value.is_number_integer() ||
            value.get<int64_t>() != kPipelineDefVersion) {
          return Error(path, "this inflow reads version " +
                                 std::to_string(kPipelineDefVersion) +
                                 ", got " + value.dump());
        }
        have_version = true;
      } else if (key == "kind") {
        if (value == "dataset") {
          def.kind = DefKind::kDataset;
        } else if (value == "pipeline") {
          def.kind = DefKind::kPipeline;
        } else {
          return Error(
              path, "must be \"dataset\" or \"pipeline\", got " + value.dump());
        }
      } else if (key == "op_libraries") {
        if (!value.is_array()) {
          return Error(path, std::string("must be a list of paths, got ") +
                                 KindOfJson(value));
        }
        for (size_t i = 0; i < value.size(); ++i) {
          if (!value[i].is_string()) {
            return Error(
                path + "[" + std::to_string(i) + "]",
                std::string("must be a path, got ") + KindOfJson(value[i]));
          }
          def.op_libraries.push_back(value[i].get<std::string>());
        }
      } else if (key == "steps") {
        if (!value.is_array()) {
          return Error(path, std::string("must be a list of steps, got ") +
                                 KindOfJson(value));
        }
        for (size_t i = 0; i < value.size(); ++i) {
          INFLOW_ASSIGN_OR_RETURN(
              Step step,
              ReadStep(value[i], path + "[" + std::to_string(i) + "]"));
          def.steps.push_back(std::move(step));
        }
        have_steps = true;
      } else {
        return Error(path,
                     "unknown field (a definition has version, kind, "
                     "op_libraries and steps)");
      }
    }
    if (!have_version) return Error("$", "no \"version\"");
    if (!root.contains("kind")) return Error("$", "no \"kind\"");
    if (!have_steps) return Error("$", "no \"steps\"");
    return def;
  }

 private:
  Status Error(const std::string& path, const std::string& message) const {
    return InvalidArgumentError(std::string(source_) + ": " + path + ": " +
                                message);
  }

  Result<Step> ReadStep(const Json& j, const std::string& path) {
    if (!j.is_object()) {
      return Error(
          path, std::string("a step must be an object, got ") + KindOfJson(j));
    }
    Step step;
    bool have_op = false;
    for (const auto& [key, value] : j.items()) {
      if (key == "op") {
        if (!value.is_string() || value.get<std::string>().empty()) {
          return Error(path + ".op", "must be an op name, got " + value.dump());
        }
        step.op = value.get<std::string>();
        have_op = true;
      } else if (key == "attrs") {
        INFLOW_ASSIGN_OR_RETURN(step.attrs, ReadAttrs(value, path + ".attrs"));
      } else if (key == "options") {
        INFLOW_ASSIGN_OR_RETURN(step.options,
                                ReadAttrs(value, path + ".options"));
      } else {
        return Error(path + "." + key,
                     "unknown field (a step has op, attrs and options)");
      }
    }
    if (!have_op) return Error(path, "a step needs an \"op\"");
    return step;
  }

  Result<ops::AttrMap> ReadAttrs(const Json& j, const std::string& path) {
    if (!j.is_object()) {
      return Error(path,
                   std::string("must be an object, got ") + KindOfJson(j));
    }
    ops::AttrMap attrs;
    for (const auto& [key, value] : j.items()) {
      if (value.is_null()) continue;  // unset
      INFLOW_ASSIGN_OR_RETURN(ops::AttrValue v,
                              ReadValue(value, path + "." + key));
      attrs.Set(key, std::move(v));
    }
    return attrs;
  }

  Result<ops::AttrValue> ReadValue(const Json& j, const std::string& path) {
    if (j.is_boolean()) return ops::AttrValue(j.get<bool>());
    if (j.is_number_unsigned()) {
      if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return Error(path, "the int " + j.dump() + " is out of range");
      }
      return ops::AttrValue(static_cast<int64_t>(j.get<uint64_t>()));
    }
    if (j.is_number_integer()) return ops::AttrValue(j.get<int64_t>());
    if (j.is_number_float()) return ops::AttrValue(j.get<double>());
    if (j.is_string()) return ops::AttrValue(j.get<std::string>());
    if (j.is_array()) {
      bool ints = true, numbers = true, strings = true;
      for (const Json& e : j) {
        ints = ints && e.is_number_integer();
        numbers = numbers && e.is_number();
        strings = strings && e.is_string();
      }
      // An empty list reads as list(int); the builders take it for any
      // list type.
      if (ints) {
        std::vector<int64_t> v;
        for (const Json& e : j) {
          if (e.is_number_unsigned() &&
              e.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
            return Error(path, "the int " + e.dump() + " is out of range");
          }
          v.push_back(e.get<int64_t>());
        }
        return ops::AttrValue(std::move(v));
      }
      if (numbers) {
        std::vector<double> v;
        for (const Json& e : j) v.push_back(e.get<double>());
        return ops::AttrValue(std::move(v));
      }
      if (strings) {
        std::vector<std::string> v;
        for (const Json& e : j) v.push_back(e.get<std::string>());
        return ops::AttrValue(std::move(v));
      }
      return Error(path,
                   "a list attribute holds numbers only or strings "
                   "only");
    }
    return Error(path, std::string("an attribute is a number, a bool, a "
                                   "string or a list of them, got ") +
                           KindOfJson(j));
  }

  std::string_view source_;
};

// "line L, column C" of byte offset `pos` (1-based, as editors count).
std::string LineColumn(std::string_view text, size_t pos) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

std::string_view DefKindName(DefKind kind) {
  return kind == DefKind::kDataset ? "dataset" : "pipeline";
}

PipelineDef& PipelineDef::Add(std::string op, ops::AttrMap attrs,
                              ops::AttrMap options) {
  steps.push_back({std::move(op), std::move(attrs), std::move(options)});
  return *this;
}

std::string ToJson(const PipelineDef& def) {
  Json root = Json::object();
  root["version"] = kPipelineDefVersion;
  root["kind"] = std::string(DefKindName(def.kind));
  if (!def.op_libraries.empty()) root["op_libraries"] = def.op_libraries;
  Json steps = Json::array();
  for (const Step& step : def.steps) {
    Json s = Json::object();
    s["op"] = step.op;
    s["attrs"] = MapToJson(step.attrs);
    if (!step.options.empty()) s["options"] = MapToJson(step.options);
    steps.push_back(std::move(s));
  }
  root["steps"] = std::move(steps);
  // Strings made in C++ may hold bytes that are not UTF-8: written as
  // U+FFFD rather than thrown about.
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<PipelineDef> ParsePipelineDef(std::string_view json,
                                     std::string_view source) {
  // The JSON library reports a syntax error by exception; it stops here.
  Json root;
  try {
    root = Json::parse(json.begin(), json.end());
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    // nlohmann's message carries its own "[json.exception.parse_error.101]
    // parse error at line L, column C: " prefix; keep what follows.
    if (const size_t colon = what.find(": "); colon != std::string::npos) {
      what = what.substr(colon + 2);
    }
    return InvalidArgumentError(std::string(source) + ": " +
                                LineColumn(json, e.byte > 0 ? e.byte - 1 : 0) +
                                ": not valid JSON: " + what);
  } catch (const Json::exception& e) {
    return InvalidArgumentError(std::string(source) +
                                ": not valid JSON: " + e.what());
  }
  return Reader(source).Read(root);
}

Result<PipelineDef> ReadPipelineDef(const std::string& path, Env* env) {
  Env& e = env != nullptr ? *env : Env::Default();
  INFLOW_ASSIGN_OR_RETURN(std::string text, ReadFileToString(e, path));
  return ParsePipelineDef(text, path);
}

Status WritePipelineDef(const PipelineDef& def, const std::string& path,
                        Env* env) {
  Env& e = env != nullptr ? *env : Env::Default();
  inflow::internal::AtomicPublish publish(e);
  INFLOW_ASSIGN_OR_RETURN(
      WritableFile * file,
      publish.Create(path, path + ".tmp-" + std::to_string(::getpid())));
  INFLOW_RETURN_IF_ERROR(file->Append(ToJson(def)));
  return publish.Commit();
}

Status LoadOpLibraries(const PipelineDef& def) {
  for (size_t i = 0; i < def.op_libraries.size(); ++i) {
    Result<ops::OpLibraryInfo> lib = ops::LoadOpLibrary(def.op_libraries[i]);
    if (!lib.ok()) {
      return lib.status().WithContext(
          internal::StepPath(def, i, "op_libraries"));
    }
  }
  return OkStatus();
}

}  // namespace inflow::pipedef
