// SimGrid 3.32 side of the energy agreement checks (tests/simgrid_energy.rs): replays a gridsim
// replay scenario (src/replay.rs) with SimGrid's host and link energy plugins and prints the same
// JSON as `gridsim replay`: each activity's completion date and, at the scenario's "energy_at",
// the joules of every host that has a "wattage_per_state" property and of every link that has a
// "wattage_range" property.
//
// Build: g++ -O1 -std=c++17 simgrid_energy_oracle.cpp -o oracle -lsimgrid
// Usage: oracle SCENARIO.json
//
// Scenario: {"platform": path relative to the scenario, "config": {SimGrid --cfg items},
// "energy_at": date, "activities": [{"kind": "exec", "host", "flops", "start"} |
// {"kind": "pstate", "host", "pstate", "start"} | {"kind": "off" | "on", "host", "start"} |
// {"kind": "comm", "src", "dst", "bytes", "start"}]}.
//
// Every action is done by an actor of its own on an extra host added to the root zone, which
// takes part in nothing else (so turning a scenario host off kills no actor): it sleeps until
// the action's start, then runs an exec on the scenario host (Exec::set_host; a host failure
// makes wait() throw, and the exec is reported failed at that date), sends the bytes from src to
// dst (Comm::sendto_async), calls Host::set_pstate, or turns the host off or on. The energy reader sleeps until "energy_at" and reads
// sg_host_get_consumed_energy of every powered host and sg_link_get_consumed_energy of every
// link with a "wattage_range", in the order Engine::get_all_links gives them (by name).

#include <simgrid/Exception.hpp>
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>

#include <simgrid/version.h>

#include <cstdio>
#include <cstring>
#include <tuple>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& message)
{
  std::fprintf(stderr, "simgrid_energy_oracle: %s\n", message.c_str());
  std::exit(2);
}

// A JSON value: just what scenario files hold.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  double number = 0;
  bool boolean  = false;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json* get(const std::string& key) const
  {
    for (auto const& [k, v] : members)
      if (k == key)
        return &v;
    return nullptr;
  }
};

class Parser {
  const std::string& s_;
  size_t at_ = 0;

  void space()
  {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' || s_[at_] == '\t'))
      at_++;
  }
  [[noreturn]] void fail(const std::string& what) const
  {
    die("scenario is not valid JSON at byte " + std::to_string(at_) + ": " + what);
  }
  void expect(char c)
  {
    space();
    if (at_ >= s_.size() || s_[at_] != c)
      fail(std::string("expected '") + c + "'");
    at_++;
  }
  std::string string()
  {
    expect('"');
    std::string out;
    while (at_ < s_.size() && s_[at_] != '"') {
      char c = s_[at_++];
      if (c == '\\') {
        if (at_ >= s_.size())
          fail("unfinished escape");
        char e = s_[at_++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u': fail("\\u escapes are not supported");
          default: out += e;
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
  }

public:
  explicit Parser(const std::string& s) : s_(s) {}

  Json value()
  {
    space();
    if (at_ >= s_.size())
      fail("unexpected end");
    Json v;
    char c = s_[at_];
    if (c == '{') {
      v.kind = Json::Object;
      at_++;
      space();
      if (s_[at_] == '}') {
        at_++;
        return v;
      }
      while (true) {
        std::string key = string();
        expect(':');
        v.members.emplace_back(key, value());
        space();
        if (at_ < s_.size() && s_[at_] == ',') {
          at_++;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      at_++;
      space();
      if (s_[at_] == ']') {
        at_++;
        return v;
      }
      while (true) {
        v.items.push_back(value());
        space();
        if (at_ < s_.size() && s_[at_] == ',') {
          at_++;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      v.text = string();
      return v;
    }
    for (auto const& [word, kind, flag] : {std::tuple{"true", Json::Bool, true}, std::tuple{"false", Json::Bool, false},
                                           std::tuple{"null", Json::Null, false}}) {
      if (s_.compare(at_, std::strlen(word), word) == 0) {
        at_ += std::strlen(word);
        v.kind    = kind;
        v.boolean = flag;
        return v;
      }
    }
    const char* begin = s_.c_str() + at_;
    char* end         = nullptr;
    v.number          = std::strtod(begin, &end);
    if (end == begin)
      fail("expected a value");
    at_ += end - begin;
    v.kind = Json::Number;
    return v;
  }
};

struct Action {
  std::string kind;
  simgrid::s4u::Host* host = nullptr;
  simgrid::s4u::Host* dst  = nullptr; // a comm's destination; `host` is its source
  double amount            = 0; // flops, or the pstate
  double start             = 0;
};

struct Outcome {
  double finish = -1;
  bool failed   = false;
  bool done     = false;
};

double number_of(const Json& act, size_t i, const char* key)
{
  const Json* v = act.get(key);
  if (v == nullptr || v->kind != Json::Number)
    die("activity " + std::to_string(i) + ": field " + key + " must be a number");
  return v->number;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 2)
    die("usage: simgrid_energy_oracle SCENARIO.json");
  std::string path = argv[1];
  std::ifstream in(path);
  if (not in)
    die("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  Json scenario    = Parser(text).value();
  if (scenario.kind != Json::Object)
    die("the scenario must be a JSON object");

  const Json* platform = scenario.get("platform");
  if (platform == nullptr || platform->kind != Json::String)
    die("field platform must be a string");
  std::string dir      = path.rfind('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  std::string plat     = platform->text.size() > 0 && platform->text[0] == '/' ? platform->text : dir + "/" + platform->text;

  std::vector<std::string> args = {"simgrid_energy_oracle", "--log=root.thres:critical"};
  if (const Json* config = scenario.get("config"))
    for (auto const& [key, value] : config->members)
      args.push_back("--cfg=" + key + ":" + value.text);
  std::vector<char*> cargs;
  for (auto& a : args)
    cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());

  sg_host_energy_plugin_init();
  simgrid::s4u::Engine engine(&cargc, cargs.data());
  // After the engine exists: the plugin counts hosts, which makes the engine if none is there.
  sg_link_energy_plugin_init();
  engine.load_platform(plat);

  const Json* energy_at_json = scenario.get("energy_at");
  double energy_at           = energy_at_json != nullptr ? energy_at_json->number : -1;

  std::vector<Action> actions;
  const Json* activities = scenario.get("activities");
  if (activities == nullptr || activities->kind != Json::Array)
    die("field activities must be an array");
  for (size_t i = 0; i < activities->items.size(); i++) {
    const Json& act = activities->items[i];
    const Json* kind = act.get("kind");
      if (kind == nullptr || kind->kind != Json::String)
      die("activity " + std::to_string(i) + ": field kind must be a string");
    Action a;
    a.kind  = kind->text;
    a.start = number_of(act, i, "start");
    auto host_of = [&engine, &act, i](const char* key) {
      const Json* name = act.get(key);
      if (name == nullptr || name->kind != Json::String)
        die("activity " + std::to_string(i) + ": field " + key + " must be a string");
      auto* h = engine.host_by_name_or_null(name->text);
      if (h == nullptr)
        die("activity " + std::to_string(i) + ": unknown host " + name->text);
      return h;
    };
    if (a.kind == "comm") {
      a.host   = host_of("src");
      a.dst    = host_of("dst");
      a.amount = number_of(act, i, "bytes");
      actions.push_back(a);
      continue;
    }
    a.host = host_of("host");
    if (a.kind == "exec")
      a.amount = number_of(act, i, "flops");
    else if (a.kind == "pstate")
      a.amount = number_of(act, i, "pstate");
    else if (a.kind != "off" && a.kind != "on")
      die("activity " + std::to_string(i) + ": unknown kind " + a.kind);
    actions.push_back(a);
  }

  std::vector<simgrid::s4u::Host*> powered;
  for (auto* h : engine.get_all_hosts())
    if (h->get_property("wattage_per_state") != nullptr)
      powered.push_back(h);
  std::vector<double> joules(powered.size(), -1);
  std::vector<simgrid::s4u::Link*> ranged;
  for (auto* l : engine.get_all_links())
    if (l->get_property("wattage_range") != nullptr)
      ranged.push_back(l);
  std::vector<double> link_joules(ranged.size(), -1);

  // The launcher host: not powered, never turned off.
  auto* launcher = engine.get_netzone_root()->create_host("__energy_oracle_launcher__", 1.0)->seal();

  std::vector<Outcome> outcomes(actions.size());
  for (size_t i = 0; i < actions.size(); i++) {
    simgrid::s4u::Actor::create("action-" + std::to_string(i), launcher, [i, &actions, &outcomes]() {
      Action const& a = actions[i];
      simgrid::s4u::this_actor::sleep_until(a.start);
      Outcome& o = outcomes[i];
      if (a.kind == "comm") {
        try {
          simgrid::s4u::Comm::sendto_async(a.host, a.dst, static_cast<uint64_t>(a.amount))->wait();
        } catch (const simgrid::Exception&) {
          o.failed = true;
        }
      } else if (a.kind == "exec") {
        try {
          simgrid::s4u::this_actor::exec_init(a.amount)->set_host(a.host)->start()->wait();
        } catch (const simgrid::Exception&) {
          o.failed = true;
        }
      } else if (a.kind == "pstate") {
        a.host->set_pstate(static_cast<unsigned long>(a.amount));
      } else if (a.kind == "off") {
        a.host->turn_off();
      } else {
        a.host->turn_on();
      }
      o.finish = simgrid::s4u::Engine::get_clock();
      o.done   = true;
    });
  }
  if (energy_at >= 0)
    simgrid::s4u::Actor::create("energy-reader", launcher, [energy_at, &powered, &joules, &ranged, &link_joules]() {
      simgrid::s4u::this_actor::sleep_until(energy_at);
      for (size_t k = 0; k < powered.size(); k++)
        joules[k] = sg_host_get_consumed_energy(powered[k]);
      for (size_t k = 0; k < ranged.size(); k++)
        link_joules[k] = sg_link_get_consumed_energy(ranged[k]);
    });

  engine.run();

  std::printf("{\"simgrid_version\": \"%d.%d.%d\", \"results\": [", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR,
              SIMGRID_VERSION_PATCH);
  for (size_t i = 0; i < actions.size(); i++) {
    const Outcome& o = outcomes[i];
    std::printf("%s\n{\"index\": %zu, \"kind\": \"%s\", \"start\": %.17g, ", i == 0 ? "" : ",", i,
                actions[i].kind.c_str(), actions[i].start);
    if (o.done)
      std::printf("\"finish\": %.17g, \"failed\": %s}", o.finish, o.failed ? "true" : "false");
    else
      std::printf("\"finish\": null, \"failed\": true}");
  }
  std::printf("],\n\"energy\": [");
  for (size_t k = 0; energy_at >= 0 && k < powered.size(); k++)
    std::printf("%s\n{\"host\": \"%s\", \"joules\": %.17g}", k == 0 ? "" : ",", powered[k]->get_cname(), joules[k]);
  std::printf("],\n\"link_energy\": [");
  for (size_t k = 0; energy_at >= 0 && k < ranged.size(); k++)
    std::printf("%s\n{\"link\": \"%s\", \"joules\": %.17g}", k == 0 ? "" : ",", ranged[k]->get_cname(),
                link_joules[k]);
  std::printf("]}\n");
  return 0;
}
