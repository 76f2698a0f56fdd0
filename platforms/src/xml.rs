//! SimGrid XML platforms (DTD v4.1, as SimGrid 3.32 reads them) -> [`Platform`].
//!
//! Supported: `platform` (version 4 or 4.1), `config`/`prop`, `zone` with routing `Full`,
//! `Floyd`, `Dijkstra`, `DijkstraCache`, `Cluster`, `None` or `Vivaldi`, `host` (+ `prop`,
//! `disk`), `router`, `link`, `route`, `zoneRoute`, `bypassRoute`, `bypassZoneRoute` (and its v4
//! spelling `bypassASroute`), `link_ctn`, `cluster` (FLAT, TORUS, FAT_TREE and DRAGONFLY
//! topologies, the last three built by [`crate::topology`]), `host_link`, `backbone` and
//! `cabinet` (in `routing="Cluster"` zones), `peer` (in `routing="Vivaldi"` zones), `trace` and
//! `trace_connect`. What each becomes is
//! documented on the functions below and in `docs/platforms.md`; so is the short list of
//! elements and attributes that SimGrid accepts and this importer ignores. Everything else is an
//! error that names the file, the line, the element and the attribute.

use std::collections::BTreeMap;

use crate::xml_tree::{Document, Node, NodeKind};
use sim_core::platform::{Disk, DiskModel, Host, NetPoint, Platform, ZoneId, ZoneRouting};
use sim_core::profile::Profile;

use crate::builder::{parse_radicals, Builder, ClusterPart, ClusterSpec, Direction, LinkPolicy, LinkProfiles};
use crate::check_setting;
use crate::error::{line_at_offset, ErrorKind, Field, PlatformError};
use crate::profile_text::{parse_profile, parse_profile_with_periodicity};
use crate::topology::{self, ClusterLinks, Counters, Topology};
use crate::units::{self, Quantity};
use crate::FileResolver;

/// Deepest zone nesting accepted (guards the recursive descent).
const MAX_NESTING: usize = 64;

/// Parses a SimGrid v4.1 XML platform. `file` names the platform in error messages; `files`
/// reads the files it references (`speed_file`, `state_file`, `bandwidth_file`, `latency_file`,
/// `<trace file=..>`), by the name written in the platform.
pub fn parse_simgrid_xml(text: &str, file: &str, files: &mut dyn FileResolver) -> Result<Platform, PlatformError> {
    let doc = Document::parse(text).map_err(|e| PlatformError {
        file: file.to_string(),
        line: Some(line_at_offset(text, e.pos)),
        element: None,
        field: None,
        kind: ErrorKind::Xml(e.to_string()),
    })?;
    let mut ctx = Ctx {
        doc: &doc,
        file,
        files,
        b: Builder::new(),
        traces: BTreeMap::new(),
        connects: Vec::new(),
        root_seen: false,
        counters: Counters::default(),
    };
    let root = doc.root_element();
    if root.name() != "platform" || root.has_namespace() {
        return Err(ctx.err(
            root,
            "document".into(),
            None,
            ErrorKind::UnknownElement(root.name().into()),
        ));
    }
    ctx.platform(root)?;
    ctx.apply_connects()?;
    let platform = ctx.b.finish();
    // Settings that only make sense together (smpi/* with network/model SMPI), as the engine
    // will read them.
    match sim_core::NetworkParams::from_config(&platform.config) {
        Err(e) => return Err(PlatformError::file(file, ErrorKind::Setting(e.to_string()))),
        // The Constant model takes no link (SimGrid aborts on the first one).
        Ok(params) => {
            if let Err(e) = params.check_platform(&platform) {
                return Err(PlatformError::file(file, ErrorKind::Setting(e.to_string())));
            }
        }
    }
    if platform.config.get("cpu/optim").map(String::as_str) == Some("TI") {
        if let Some(h) = platform.hosts.iter().find(|h| h.cores > 1) {
            return Err(PlatformError::file(
                file,
                ErrorKind::Setting(format!(
                    "setting 'cpu/optim': value 'TI': host '{}' has {} cores, and SimGrid 3.32's TI CPU \
                     model only takes one-core hosts (remove the setting: the default gives the same dates)",
                    h.name, h.cores
                )),
            ));
        }
    }
    Ok(platform)
}

struct Connect {
    kind: String,
    trace: String,
    element: String,
    line: usize,
    desc: String,
}

struct Ctx<'a, 'input> {
    doc: &'a Document<'input>,
    file: &'a str,
    files: &'a mut dyn FileResolver,
    b: Builder,
    traces: BTreeMap<String, Profile>,
    connects: Vec<Connect>,
    root_seen: bool,
    /// SimGrid's per-process numbering of topology links and fat-tree leaves.
    counters: Counters,
}

type Res<T> = Result<T, PlatformError>;

fn tag<'n>(node: Node<'n, '_>) -> &'n str {
    node.name()
}

/// `host 'foo'`, `route 'A' -> 'B'`, ... for error messages.
fn describe(node: Node) -> String {
    let name = tag(node);
    match name {
        "route" | "zoneRoute" | "bypassRoute" | "bypassZoneRoute" | "bypassASroute" => format!(
            "{name} '{}' -> '{}'",
            node.attribute("src").unwrap_or("?"),
            node.attribute("dst").unwrap_or("?")
        ),
        "link_ctn" => match node.parent_element() {
            Some(parent) => format!("link_ctn in {}", describe(parent)),
            None => "link_ctn".into(),
        },
        "prop" => match node.parent_element() {
            Some(parent) => format!("prop '{}' of {}", node.attribute("id").unwrap_or("?"), describe(parent)),
            None => "prop".into(),
        },
        "trace_connect" => format!(
            "trace_connect '{}' -> '{}'",
            node.attribute("trace").unwrap_or("?"),
            node.attribute("element").unwrap_or("?")
        ),
        _ => match node.attribute("id") {
            Some(id) => format!("{name} '{id}'"),
            None => format!("<{name}>"),
        },
    }
}

impl<'a, 'input> Ctx<'a, 'input> {
    fn line_at(&self, pos: usize) -> usize {
        self.doc.line_at(pos)
    }

    /// An error about `node`; with `field`, on the attribute's own line when it exists.
    fn err(&self, node: Node, element: String, field: Option<&str>, kind: ErrorKind) -> PlatformError {
        let pos = field
            .and_then(|f| node.attributes().find(|a| a.name() == f && !a.has_namespace()))
            .map_or(node.position(), |a| a.position());
        PlatformError {
            file: self.file.to_string(),
            line: Some(self.line_at(pos)),
            element: Some(element),
            field: field.map(|f| Field::Attribute(f.to_string())),
            kind,
        }
    }

    fn err_at(&self, node: Node, field: Option<&str>, kind: ErrorKind) -> PlatformError {
        self.err(node, describe(node), field, kind)
    }

    fn check_attrs(&self, node: Node, allowed: &[&str]) -> Res<()> {
        for a in node.attributes() {
            if a.has_namespace() || !allowed.contains(&a.name()) {
                return Err(PlatformError {
                    file: self.file.to_string(),
                    line: Some(self.line_at(a.position())),
                    element: Some(describe(node)),
                    field: Some(Field::Attribute(a.name().to_string())),
                    kind: ErrorKind::UnknownAttribute,
                });
            }
        }
        Ok(())
    }

    fn req<'n, 'i: 'n>(&self, node: Node<'n, 'i>, name: &str) -> Res<&'n str> {
        node.attribute(name)
            .ok_or_else(|| self.err_at(node, Some(name), ErrorKind::Missing))
    }

    /// An optional attribute; an empty value counts as absent (SimGrid's DTD defaults are "").
    fn opt<'n, 'i: 'n>(&self, node: Node<'n, 'i>, name: &str) -> Option<&'n str> {
        node.attribute(name).filter(|v| !v.trim().is_empty())
    }

    fn quantity(&self, node: Node, name: &str, value: &str, q: Quantity) -> Res<f64> {
        units::parse(value, q).map_err(|e| self.err_at(node, Some(name), ErrorKind::BadUnit(e)))
    }

    fn positive(&self, node: Node, name: &str, value: f64) -> Res<f64> {
        if value > 0.0 {
            Ok(value)
        } else {
            Err(self.err_at(node, Some(name), ErrorKind::NotPositive(value.to_string())))
        }
    }

    fn non_negative(&self, node: Node, name: &str, value: f64) -> Res<f64> {
        if value >= 0.0 {
            Ok(value)
        } else {
            Err(self.err_at(node, Some(name), ErrorKind::Negative(value.to_string())))
        }
    }

    fn integer(&self, node: Node, name: &str, value: &str, min: i64) -> Res<i64> {
        let v: i64 = value.trim().parse().map_err(|_| {
            self.err_at(
                node,
                Some(name),
                ErrorKind::BadValue {
                    value: value.into(),
                    reason: "expected an integer".into(),
                },
            )
        })?;
        if v < min {
            return Err(self.err_at(
                node,
                Some(name),
                ErrorKind::BadValue {
                    value: value.into(),
                    reason: format!("must be at least {min}"),
                },
            ));
        }
        Ok(v)
    }

    fn choice<'v>(&self, node: Node, name: &str, value: &'v str, allowed: &[&str]) -> Res<&'v str> {
        if allowed.contains(&value) {
            Ok(value)
        } else {
            Err(self.err_at(
                node,
                Some(name),
                ErrorKind::BadValue {
                    value: value.into(),
                    reason: format!("expected one of {}", allowed.join(", ")),
                },
            ))
        }
    }

    fn symmetrical(&self, node: Node) -> Res<bool> {
        match node.attribute("symmetrical") {
            None => Ok(true),
            Some(v) => Ok(matches!(
                self.choice(node, "symmetrical", v, &["YES", "NO", "yes", "no"])?,
                "YES" | "yes"
            )),
        }
    }

    /// The element children of `node`; text other than whitespace is an error.
    fn elements<'n, 'i: 'n>(&self, node: Node<'n, 'i>) -> Res<Vec<Node<'n, 'i>>> {
        let mut out = Vec::new();
        for child in node.children() {
            match child.kind() {
                NodeKind::Element => {
                    if child.has_namespace() {
                        return Err(self.misplaced(child, node));
                    }
                    out.push(child)
                }
                NodeKind::Text if child.text().is_some_and(|t| !t.trim().is_empty()) => {
                    return Err(PlatformError {
                        file: self.file.to_string(),
                        line: Some(self.line_at(child.position())),
                        element: Some(describe(node)),
                        field: None,
                        kind: ErrorKind::BadValue {
                            value: child.text().unwrap_or("").trim().chars().take(40).collect(),
                            reason: "unexpected text".into(),
                        },
                    });
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn misplaced(&self, child: Node, parent: Node) -> PlatformError {
        let known = [
            "platform",
            "config",
            "prop",
            "zone",
            "cluster",
            "host",
            "disk",
            "router",
            "link",
            "route",
            "zoneRoute",
            "link_ctn",
            "host_link",
            "backbone",
            "cabinet",
            "peer",
            "bypassRoute",
            "bypassZoneRoute",
            "bypassASroute",
            "trace",
            "trace_connect",
            "actor",
            "process",
            "argument",
        ];
        let name = tag(child);
        let kind = if known.contains(&name) {
            ErrorKind::MisplacedElement {
                child: name.into(),
                parent: tag(parent).into(),
            }
        } else if matches!(name, "include" | "random") {
            ErrorKind::Unsupported(format!("<{name}>"))
        } else if matches!(name, "AS" | "ASroute") {
            ErrorKind::Unsupported(format!(
                "<{name}> (platform v4.0): convert the file with simgrid_update_xml"
            ))
        } else {
            ErrorKind::UnknownElement(name.into())
        };
        // Blame the parent element, on the child's line.
        PlatformError {
            file: self.file.to_string(),
            line: Some(self.line_at(child.position())),
            element: Some(describe(parent)),
            field: None,
            kind,
        }
    }

    fn no_children(&self, node: Node) -> Res<()> {
        match self.elements(node)?.first() {
            Some(&child) => Err(self.misplaced(child, node)),
            None => Ok(()),
        }
    }

    /// Reads and parses a profile file named by attribute `name` of `node`.
    fn profile_file(&mut self, node: Node, name: &str) -> Res<Option<Profile>> {
        let Some(path) = self.opt(node, name) else {
            return Ok(None);
        };
        let text = self.files.read_to_string(path).map_err(|message| {
            self.err_at(
                node,
                Some(name),
                ErrorKind::ReadFile {
                    path: path.into(),
                    message,
                },
            )
        })?;
        let profile = parse_profile(&text).map_err(|e| {
            self.err_at(
                node,
                Some(name),
                ErrorKind::Profile {
                    path: path.into(),
                    line: e.line,
                    message: e.message,
                },
            )
        })?;
        Ok(Some(profile))
    }

    // ----- elements --------------------------------------------------------------------------

    fn platform(&mut self, node: Node) -> Res<()> {
        self.check_attrs(node, &["version"])?;
        let version = node.attribute("version").unwrap_or("0.0");
        if !matches!(version.trim(), "4" | "4.0" | "4.1") {
            return Err(self.err_at(
                node,
                Some("version"),
                ErrorKind::Unsupported(format!(
                    "platform version {version}: this importer reads versions 4 and 4.1 (older files can be \
                     converted with SimGrid's simgrid_update_xml)"
                )),
            ));
        }
        for child in self.elements(node)? {
            match tag(child) {
                "config" => self.config(child)?,
                "zone" | "cluster" => {
                    if self.root_seen {
                        return Err(self.err_at(
                            child,
                            None,
                            ErrorKind::Routing("a platform has exactly one top-level zone".into()),
                        ));
                    }
                    self.root_seen = true;
                    if tag(child) == "zone" {
                        self.zone(child, None, 0)?
                    } else {
                        self.cluster(child, None)?
                    }
                }
                "trace" => self.trace(child)?,
                "trace_connect" => self.trace_connect(child)?,
                // Deployment inside a platform file: not part of the platform.
                "actor" | "process" => {}
                _ => return Err(self.misplaced(child, node)),
            }
        }
        if !self.root_seen {
            return Err(self.err_at(node, None, ErrorKind::Routing("the platform has no <zone>".into())));
        }
        Ok(())
    }

    fn config(&mut self, node: Node) -> Res<()> {
        self.check_attrs(node, &["id"])?;
        for child in self.elements(node)? {
            if tag(child) != "prop" {
                return Err(self.misplaced(child, node));
            }
            let (id, value) = self.prop(child)?;
            if let Err(why) = check_setting(&id, &value) {
                return Err(self.err_at(child, None, ErrorKind::Setting(why)));
            }
            self.b.platform.config.insert(id, value);
        }
        Ok(())
    }

    fn prop(&self, node: Node) -> Res<(String, String)> {
        self.check_attrs(node, &["id", "value"])?;
        self.no_children(node)?;
        Ok((self.req(node, "id")?.to_string(), self.req(node, "value")?.to_string()))
    }

    fn zone(&mut self, node: Node, parent: Option<ZoneId>, depth: usize) -> Res<()> {
        self.check_attrs(node, &["id", "routing"])?;
        let id = self.req(node, "id")?;
        let routing = node.attribute("routing").unwrap_or("None");
        let kind = match routing {
            "Full" => ZoneRouting::Full,
            "Floyd" => ZoneRouting::Floyd,
            "Dijkstra" | "DijkstraCache" => ZoneRouting::Dijkstra,
            "Cluster" => ZoneRouting::Star,
            "None" => ZoneRouting::Empty,
            "Vivaldi" => ZoneRouting::Vivaldi,
            "Wifi" | "WIFI" => {
                return Err(self.err_at(
                    node,
                    Some("routing"),
                    ErrorKind::Unsupported(format!(
                        "routing=\"{routing}\": Wi-Fi zones are out of scope: an 802.11 access point's \
                         capacity depends on the rates of all its stations at once (SimGrid's WIFI links, \
                         ns-3's packet-level 802.11), which gridsim's max-min sharing of wired links does \
                         not reproduce"
                    )),
                ))
            }
            "ClusterTorus" | "ClusterFatTree" | "ClusterDragonfly" | "Star" => {
                return Err(self.err_at(
                    node,
                    Some("routing"),
                    ErrorKind::Unsupported(format!("routing=\"{routing}\"")),
                ))
            }
            _ => {
                return Err(self.err_at(
                    node,
                    Some("routing"),
                    ErrorKind::BadValue {
                        value: routing.into(),
                        reason: "expected Full, Floyd, Dijkstra, DijkstraCache, Cluster, None or Vivaldi".into(),
                    },
                ))
            }
        };
        if depth > MAX_NESTING {
            return Err(self.err_at(
                node,
                None,
                ErrorKind::Unsupported(format!("zones nested deeper than {MAX_NESTING}")),
            ));
        }
        let zone = match parent {
            Some(p) => self.b.add_zone(p, id, kind),
            None => self.b.configure_root(id, kind),
        }
        .map_err(|e| self.err_at(node, Some("id"), e))?;
        let star = kind == ZoneRouting::Star;
        let vivaldi = kind == ZoneRouting::Vivaldi;
        // Zones that route over declared routes; the others compute theirs (or have none).
        let routed = matches!(kind, ZoneRouting::Full | ZoneRouting::Floyd | ZoneRouting::Dijkstra);
        for child in self.elements(node)? {
            match tag(child) {
                "host" => {
                    self.host(child, zone)?;
                    if vivaldi {
                        self.coordinates(child, zone)?;
                    }
                }
                "router" => self.router(child, zone)?,
                "peer" if vivaldi => self.peer(child, zone)?,
                "link" => self.link(child)?,
                "route" if routed => self.route(child, zone)?,
                "zoneRoute" if routed => self.zone_route(child, zone)?,
                "bypassRoute" => self.bypass_route(child, zone)?,
                "bypassZoneRoute" | "bypassASroute" => self.bypass_zone_route(child, zone)?,
                "zone" if !star => self.zone(child, Some(zone), depth + 1)?,
                "cluster" if !star => self.cluster(child, Some(zone))?,
                "cabinet" if star => self.cabinet(child, zone)?,
                "host_link" if star => self.host_link(child, zone)?,
                "backbone" if star => self.backbone(child, zone)?,
                // Zone properties: SimGrid stores them on the zone; gridsim has no use for them.
                "prop" => {
                    self.prop(child)?;
                }
                "trace" => self.trace(child)?,
                "trace_connect" => self.trace_connect(child)?,
                _ => return Err(self.misplaced(child, node)),
            }
        }
        Ok(())
    }

    /// `<host id speed [core] [pstate] [speed_file|availability_file] [state_file]
    /// [coordinates]>` with `<prop>` and `<disk>` children. `speed` may list several pstates
    /// separated by commas; the one selected by `pstate` (default 0) is the host's speed and must
    /// be positive, the others may be 0 (as in SimGrid 3.32's `energy_boot.xml`). Props
    /// `memory` and `io_buffer` (SimGrid sizes, e.g. `4GiB`) also fill `memory_bytes` and
    /// `io_buffer_bytes`. `coordinates` is read by an enclosing Vivaldi zone
    /// (`Ctx::coordinates`), ignored elsewhere.
    fn host(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(
            node,
            &[
                "id",
                "speed",
                "core",
                "pstate",
                "speed_file",
                "availability_file",
                "state_file",
                "coordinates",
            ],
        )?;
        let id = self.req(node, "id")?;
        let speed_list = self.req(node, "speed")?;
        // As SimGrid 3.32, pstates not in use may have speed 0 (energy_boot.xml models boot and
        // shutdown as 0 flop/s pstates); only the pstate in use must have a positive speed.
        let mut speeds = Vec::new();
        for part in speed_list.split(',') {
            speeds.push((part.trim(), self.quantity(node, "speed", part, Quantity::Speed)?));
        }
        let pstate = match node.attribute("pstate") {
            Some(v) => self.integer(node, "pstate", v, 0)? as usize,
            None => 0,
        };
        if speeds.len() == 1 {
            self.positive(node, "speed", speeds[0].1)?;
        }
        for &(_, speed) in &speeds {
            self.non_negative(node, "speed", speed)?;
        }
        let Some(&(written, speed)) = speeds.get(pstate) else {
            return Err(self.err_at(
                node,
                Some("pstate"),
                ErrorKind::BadValue {
                    value: pstate.to_string(),
                    reason: format!("the host has {} pstate(s)", speeds.len()),
                },
            ));
        };
        // `quantity` already refuses non-finite values.
        if speed <= 0.0 {
            return Err(self.err_at(
                node,
                Some("speed"),
                ErrorKind::BadValue {
                    value: written.to_string(),
                    reason: format!(
                        "pstate {pstate} is the one in use (attribute 'pstate'), so its speed must be \
                         positive, got {speed} (only pstates not in use may have speed 0)"
                    ),
                },
            ));
        }
        let mut host = Host::new(id, speed);
        if speeds.len() > 1 {
            host.pstate_speeds = speeds.iter().map(|&(_, s)| s).collect();
        }
        host.pstate = pstate;
        if let Some(core) = node.attribute("core") {
            host.cores = self.integer(node, "core", core, 1)?.min(u32::MAX as i64) as u32;
        }
        if self.opt(node, "speed_file").is_some() && self.opt(node, "availability_file").is_some() {
            return Err(self.err_at(
                node,
                Some("availability_file"),
                ErrorKind::Conflict("speed_file".into()),
            ));
        }
        host.speed_profile = match self.profile_file(node, "speed_file")? {
            Some(p) => Some(p),
            None => self.profile_file(node, "availability_file")?,
        };
        host.state_profile = self.profile_file(node, "state_file")?;
        let mut disks = Vec::new();
        for child in self.elements(node)? {
            match tag(child) {
                "prop" => {
                    let (key, value) = self.prop(child)?;
                    let size = || -> Res<f64> {
                        let v = self.quantity(child, "value", &value, Quantity::Size)?;
                        self.non_negative(child, "value", v)
                    };
                    match key.as_str() {
                        "memory" => host.memory_bytes = Some(self.positive(child, "value", size()?)?),
                        "io_buffer" => host.io_buffer_bytes = Some(size()?),
                        _ => {}
                    }
                    if host.properties.insert(key.clone(), value).is_some() {
                        return Err(self.err_at(
                            child,
                            Some("id"),
                            ErrorKind::Duplicate {
                                kind: "prop",
                                name: key,
                            },
                        ));
                    }
                }
                "disk" => disks.push(self.disk(child)?),
                _ => return Err(self.misplaced(child, node)),
            }
        }
        // The energy plugin's properties are checked here so that a bad one is reported at its
        // line; the engine reads them again through the same parser.
        if let Err(reason) = sim_core::energy::HostPower::from_host(&host) {
            let key = if reason.contains(sim_core::energy::WATTAGE_OFF) {
                sim_core::energy::WATTAGE_OFF
            } else {
                sim_core::energy::WATTAGE_PER_STATE
            };
            let prop = self
                .elements(node)?
                .into_iter()
                .find(|c| tag(*c) == "prop" && c.attribute("id") == Some(key))
                .unwrap_or(node);
            let value = host.properties.get(key).cloned().unwrap_or_default();
            return Err(self.err_at(prop, Some("value"), ErrorKind::BadValue { value, reason }));
        }
        let host_id = self
            .b
            .add_host(zone, host)
            .map_err(|e| self.err_at(node, Some("id"), e))?;
        let mut names: Vec<String> = Vec::new();
        for (child, name, model) in disks {
            if names.contains(&name) {
                return Err(self.err_at(child, Some("id"), ErrorKind::Duplicate { kind: "disk", name }));
            }
            names.push(name.clone());
            self.b.platform.add_disk(Disk {
                name,
                host: host_id,
                model,
            });
        }
        Ok(())
    }

    /// `<disk id read_bw write_bw>`: a SimGrid disk (max-min shared reads and writes). Its `prop`
    /// children (e.g. `size`, `mount`) are checked and ignored.
    fn disk<'n, 'i: 'n>(&self, node: Node<'n, 'i>) -> Res<(Node<'n, 'i>, String, DiskModel)> {
        self.check_attrs(node, &["id", "read_bw", "write_bw"])?;
        let id = self.req(node, "id")?;
        let bw = |name: &str| -> Res<f64> {
            let v = self.quantity(node, name, self.req(node, name)?, Quantity::Bandwidth)?;
            self.positive(node, name, v)
        };
        let (read_bw, write_bw) = (bw("read_bw")?, bw("write_bw")?);
        for child in self.elements(node)? {
            if tag(child) != "prop" {
                return Err(self.misplaced(child, node));
            }
            self.prop(child)?;
        }
        Ok((node, id.to_string(), DiskModel::Shared { read_bw, write_bw }))
    }

    /// `<router id [coordinates]>`; `coordinates` is read in a Vivaldi zone (where a router
    /// needs them to be routed to), ignored elsewhere as SimGrid 3.32 does.
    fn router(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["id", "coordinates"])?;
        self.no_children(node)?;
        let id = self.req(node, "id")?;
        self.b
            .add_router(zone, id)
            .map_err(|e| self.err_at(node, Some("id"), e))?;
        if self.b.platform.routing.zone_routing(zone) == ZoneRouting::Vivaldi {
            self.coordinates(node, zone)?;
        }
        Ok(())
    }

    /// The `coordinates` of a host or router of the Vivaldi zone `zone` (SimGrid: three numbers
    /// separated by spaces, milliseconds), required: SimGrid 3.32 aborts on any route to a
    /// member without them.
    fn coordinates(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        let id = self.req(node, "id")?;
        let Some(text) = self.opt(node, "coordinates") else {
            return Err(self.err_at(
                node,
                Some("coordinates"),
                ErrorKind::BadValue {
                    value: String::new(),
                    reason: "a member of a Vivaldi zone needs coordinates (three numbers, e.g. \"25.5 9.4 1.4\")"
                        .into(),
                },
            ));
        };
        let bad = |reason: &str| {
            self.err_at(
                node,
                Some("coordinates"),
                ErrorKind::BadValue {
                    value: text.into(),
                    reason: reason.into(),
                },
            )
        };
        let parts: Vec<&str> = text.split_whitespace().collect();
        if parts.len() != 3 {
            return Err(bad("expected three numbers separated by spaces"));
        }
        let mut coords = [0.0; 3];
        for (c, part) in coords.iter_mut().zip(&parts) {
            *c = part
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad("expected three finite numbers"))?;
        }
        let point = self.b.netpoint(id).ok_or_else(|| bad("unknown member"))?;
        self.b
            .platform
            .routing
            .set_coordinates(zone, point, coords)
            .map_err(|e| self.err_at(node, Some("coordinates"), ErrorKind::Routing(e.to_string())))
    }

    /// `<peer id coordinates speed bw_in bw_out>` in a Vivaldi zone, as SimGrid 3.32 builds it:
    /// a one-core host with its coordinates and two private SHARED links of zero latency,
    /// `link_<id>_UP` (`bw_out`, leaving it) and `link_<id>_DOWN` (`bw_in`, entering it).
    fn peer(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["id", "coordinates", "speed", "bw_in", "bw_out"])?;
        self.no_children(node)?;
        let id = self.req(node, "id")?;
        let speed = self.quantity(node, "speed", self.req(node, "speed")?, Quantity::Speed)?;
        let speed = self.positive(node, "speed", speed)?;
        let bw = |name: &str| -> Res<f64> {
            let v = self.quantity(node, name, self.req(node, name)?, Quantity::Bandwidth)?;
            self.positive(node, name, v)
        };
        let (bw_in, bw_out) = (bw("bw_in")?, bw("bw_out")?);
        let host = self
            .b
            .add_host(zone, Host::new(id, speed))
            .map_err(|e| self.err_at(node, Some("id"), e))?;
        self.coordinates(node, zone)?;
        let mut link = |name: String, bandwidth: f64| {
            self.b
                .add_link(&name, bandwidth, 0.0, LinkPolicy::Shared, LinkProfiles::default())
                .map(|(l, _)| l)
                .map_err(|e| self.err_at(node, Some("id"), e))
        };
        let up = link(format!("link_{id}_UP"), bw_out)?;
        let down = link(format!("link_{id}_DOWN"), bw_in)?;
        self.b
            .set_star_links(zone, NetPoint::Host(host), vec![up], vec![down], None)
            .map_err(|e| self.err_at(node, Some("id"), e))
    }

    /// `<cabinet id prefix suffix radical speed bw lat>` in a `routing="Cluster"` zone, as
    /// SimGrid 3.32 expands it: for each radical a one-core host `<prefix><radical><suffix>`
    /// and its private links `link_<host>_UP` and `link_<host>_DOWN` (`bw`, `lat`), which the
    /// zone's routes take to and from it (with the zone's backbone in between).
    fn cabinet(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["id", "prefix", "suffix", "radical", "speed", "bw", "lat"])?;
        self.no_children(node)?;
        self.req(node, "id")?;
        let prefix = self.req(node, "prefix")?;
        let suffix = self.req(node, "suffix")?;
        let radical = self.req(node, "radical")?;
        let radicals = parse_radicals(radical).map_err(|reason| {
            self.err_at(
                node,
                Some("radical"),
                ErrorKind::BadValue {
                    value: radical.into(),
                    reason,
                },
            )
        })?;
        let speed = self.quantity(node, "speed", self.req(node, "speed")?, Quantity::Speed)?;
        let speed = self.positive(node, "speed", speed)?;
        let bw = self.quantity(node, "bw", self.req(node, "bw")?, Quantity::Bandwidth)?;
        let bw = self.positive(node, "bw", bw)?;
        let lat = self.quantity(node, "lat", self.req(node, "lat")?, Quantity::Time)?;
        let lat = self.non_negative(node, "lat", lat)?;
        for r in radicals {
            let name = format!("{prefix}{r}{suffix}");
            let host = self
                .b
                .add_host(zone, Host::new(name.as_str(), speed))
                .map_err(|e| self.err_at(node, Some("radical"), e))?;
            let (up, down) = self
                .b
                .add_link(
                    &format!("link_{name}"),
                    bw,
                    lat,
                    LinkPolicy::SplitDuplex,
                    LinkProfiles::default(),
                )
                .map_err(|e| self.err_at(node, Some("radical"), e))?;
            self.b
                .set_star_links(zone, NetPoint::Host(host), vec![up], vec![down], None)
                .map_err(|e| self.err_at(node, Some("radical"), e))?;
        }
        Ok(())
    }

    /// `<bypassRoute src dst>` of `<link_ctn>`: between two hosts or routers directly inside
    /// `zone`, replaces their computed route (one direction; SimGrid's bypass routes are never
    /// symmetrical).
    fn bypass_route(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["src", "dst"])?;
        let src = self.point_in(node, "src", zone)?;
        let dst = self.point_in(node, "dst", zone)?;
        let links = self.link_list(node)?;
        if links.is_empty() {
            return Err(self.err_at(
                node,
                None,
                ErrorKind::Routing(
                    "a bypass route needs at least one <link_ctn> (SimGrid 3.32 refuses an empty one)".into(),
                ),
            ));
        }
        self.b
            .add_bypass_route(zone, src, dst, links, None)
            .map_err(|e| self.err_at(node, None, e))
    }

    /// `<bypassZoneRoute src dst gw_src gw_dst>` (v4 spelling `<bypassASroute>`) of
    /// `<link_ctn>`: between two zones inside `zone` (at any depth), replaces the routes from
    /// the one to the other through `gw_src` and `gw_dst` (one direction).
    fn bypass_zone_route(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["src", "dst", "gw_src", "gw_dst"])?;
        let inner_zone = |name: &str| -> Res<ZoneId> {
            let value = self.req(node, name)?;
            match self.b.netpoint(value) {
                Some(NetPoint::Zone(z)) if z != zone && self.b.platform.routing.is_inside(NetPoint::Zone(z), zone) => {
                    Ok(z)
                }
                Some(NetPoint::Zone(_)) => Err(self.err_at(
                    node,
                    Some(name),
                    ErrorKind::Routing(format!(
                        "zone '{value}' is not inside zone '{}'",
                        self.b.platform.routing.zone_name(zone)
                    )),
                )),
                _ => Err(self.err_at(
                    node,
                    Some(name),
                    ErrorKind::Unknown {
                        kind: "zone",
                        name: value.into(),
                    },
                )),
            }
        };
        let (src, dst) = (inner_zone("src")?, inner_zone("dst")?);
        let gateways = (
            self.gateway_in(node, "gw_src", src)?,
            self.gateway_in(node, "gw_dst", dst)?,
        );
        let links = self.link_list(node)?;
        self.b
            .add_bypass_route(zone, NetPoint::Zone(src), NetPoint::Zone(dst), links, Some(gateways))
            .map_err(|e| self.err_at(node, None, e))
    }

    fn policy(&self, node: Node, name: &str, allowed: &[&str]) -> Res<Option<LinkPolicy>> {
        let Some(value) = node.attribute(name) else {
            return Ok(None);
        };
        if value == "WIFI" || value == "NONLINEAR" {
            return Err(self.err_at(node, Some(name), ErrorKind::Unsupported(format!("{name}=\"{value}\""))));
        }
        let value = self.choice(node, name, value, allowed)?;
        Ok(LinkPolicy::parse(value))
    }

    /// `<link id bandwidth [latency=0] [sharing_policy] [bandwidth_file] [latency_file]
    /// [state_file]>`. SimGrid 3.32 requires `latency`; here it defaults to 0. `prop` children are
    /// checked; `wattage_range` gives the link's power model (`sim_core::energy::LinkPower`).
    fn link(&mut self, node: Node) -> Res<()> {
        self.check_attrs(
            node,
            &[
                "id",
                "bandwidth",
                "latency",
                "sharing_policy",
                "bandwidth_file",
                "latency_file",
                "state_file",
            ],
        )?;
        let id = self.req(node, "id")?;
        let bw_text = self.req(node, "bandwidth")?;
        if bw_text.contains(',') {
            return Err(self.err_at(
                node,
                Some("bandwidth"),
                ErrorKind::Unsupported("several bandwidths (WIFI links)".into()),
            ));
        }
        let bandwidth = self.quantity(node, "bandwidth", bw_text, Quantity::Bandwidth)?;
        let bandwidth = self.positive(node, "bandwidth", bandwidth)?;
        let latency = match self.opt(node, "latency") {
            Some(v) => self.quantity(node, "latency", v, Quantity::Time)?,
            None => 0.0,
        };
        let latency = self.non_negative(node, "latency", latency)?;
        let policy = self
            .policy(node, "sharing_policy", &["SHARED", "SPLITDUPLEX", "FATPIPE"])?
            .unwrap_or(LinkPolicy::Shared);
        let profiles = LinkProfiles {
            bandwidth: self.profile_file(node, "bandwidth_file")?,
            latency: self.profile_file(node, "latency_file")?,
            state: self.profile_file(node, "state_file")?,
        };
        let mut power = None;
        for child in self.elements(node)? {
            if tag(child) != "prop" {
                return Err(self.misplaced(child, node));
            }
            let (key, value) = self.prop(child)?;
            // SimGrid's link energy plugin reads `wattage_range` and nothing else; see
            // `sim_core::energy` for why the others are refused rather than ignored.
            let refuse = |reason: String| {
                self.err_at(
                    child,
                    Some("value"),
                    ErrorKind::BadValue {
                        value: value.clone(),
                        reason,
                    },
                )
            };
            match key.as_str() {
                sim_core::energy::WATTAGE_RANGE if policy == LinkPolicy::SplitDuplex => {
                    return Err(refuse(format!(
                        "link '{id}': SimGrid 3.32 gives the two halves of a SPLITDUPLEX link none of its \
                         properties, so its link energy plugin never counts them; put '{key}' on a SHARED \
                         or FATPIPE link"
                    )))
                }
                sim_core::energy::WATTAGE_RANGE => {
                    power = Some(sim_core::energy::LinkPower::parse(id, &value).map_err(refuse)?);
                }
                sim_core::energy::WATTAGE_OFF | "watt_range" => {
                    return Err(refuse(format!(
                        "link '{id}': property '{key}' is not used by SimGrid 3.32's link energy plugin; \
                         a link's power is given by '{}' = \"idle:busy\" only",
                        sim_core::energy::WATTAGE_RANGE
                    )))
                }
                _ => {}
            }
        }
        let (link, _) = self
            .b
            .add_link(id, bandwidth, latency, policy, profiles)
            .map_err(|e| self.err_at(node, Some("id"), e))?;
        if let Some(power) = power {
            self.b.set_link_power(link, power);
        }
        Ok(())
    }

    /// The host or router that attribute `name` names, with the name.
    fn host_or_router<'n, 'i: 'n>(&self, node: Node<'n, 'i>, name: &str) -> Res<(NetPoint, &'n str)> {
        let value = self.req(node, name)?;
        let point = self
            .b
            .netpoint(value)
            .filter(|p| !matches!(p, NetPoint::Zone(_)))
            .ok_or_else(|| {
                self.err_at(
                    node,
                    Some(name),
                    ErrorKind::Unknown {
                        kind: "host or router",
                        name: value.into(),
                    },
                )
            })?;
        Ok((point, value))
    }

    /// The host or router that attribute `name` of a zone route names, which must lie inside
    /// zone `z` (the side of the route it is the gateway of).
    fn gateway_in(&self, node: Node, name: &str, z: ZoneId) -> Res<NetPoint> {
        let (point, value) = self.host_or_router(node, name)?;
        if !self.b.platform.routing.is_inside(point, z) {
            return Err(self.err_at(
                node,
                Some(name),
                ErrorKind::Routing(format!(
                    "gateway '{value}' is not inside zone '{}'",
                    self.b.platform.routing.zone_name(z)
                )),
            ));
        }
        Ok(point)
    }

    fn link_list(&self, node: Node) -> Res<Vec<sim_core::platform::LinkId>> {
        let mut links = Vec::new();
        for child in self.elements(node)? {
            if tag(child) != "link_ctn" {
                return Err(self.misplaced(child, node));
            }
            self.check_attrs(child, &["id", "direction"])?;
            self.no_children(child)?;
            let id = self.req(child, "id")?;
            let direction = match node_direction(child) {
                Some(d) => match self.choice(child, "direction", d, &["UP", "DOWN", "NONE"])? {
                    "UP" => Some(Direction::Up),
                    "DOWN" => Some(Direction::Down),
                    _ => None,
                },
                None => None,
            };
            links.push(
                self.b
                    .resolve_link(id, direction)
                    .map_err(|e| self.err_at(child, Some("id"), e))?,
            );
        }
        Ok(links)
    }

    /// A host or router directly inside `zone`, named by attribute `name`.
    fn point_in(&self, node: Node, name: &str, zone: ZoneId) -> Res<NetPoint> {
        let (point, value) = self.host_or_router(node, name)?;
        if self.b.platform.routing.zone_of(point) != Some(zone) {
            return Err(self.err_at(
                node,
                Some(name),
                ErrorKind::Routing(format!(
                    "'{value}' is not directly inside zone '{}'",
                    self.b.platform.routing.zone_name(zone)
                )),
            ));
        }
        Ok(point)
    }

    /// `<route src dst [symmetrical=YES]>` of `<link_ctn id [direction]>`.
    fn route(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["src", "dst", "symmetrical"])?;
        let src = self.point_in(node, "src", zone)?;
        let dst = self.point_in(node, "dst", zone)?;
        let symmetrical = self.symmetrical(node)?;
        let links = self.link_list(node)?;
        self.b
            .add_route(zone, src, dst, links, None, symmetrical)
            .map_err(|e| self.err_at(node, None, e))
    }

    /// `<zoneRoute src dst gw_src gw_dst [symmetrical=YES]>` between two child zones.
    fn zone_route(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["src", "dst", "gw_src", "gw_dst", "symmetrical"])?;
        let child_zone = |name: &str| -> Res<ZoneId> {
            let value = self.req(node, name)?;
            match self.b.netpoint(value) {
                Some(NetPoint::Zone(z)) if self.b.platform.routing.zone_parent(z) == Some(zone) => Ok(z),
                Some(NetPoint::Zone(_)) => Err(self.err_at(
                    node,
                    Some(name),
                    ErrorKind::Routing(format!(
                        "zone '{value}' is not a direct child of zone '{}'",
                        self.b.platform.routing.zone_name(zone)
                    )),
                )),
                _ => Err(self.err_at(
                    node,
                    Some(name),
                    ErrorKind::Unknown {
                        kind: "zone",
                        name: value.into(),
                    },
                )),
            }
        };
        let (src, dst) = (child_zone("src")?, child_zone("dst")?);
        let gw_src = self.gateway_in(node, "gw_src", src)?;
        let gw_dst = self.gateway_in(node, "gw_dst", dst)?;
        let symmetrical = self.symmetrical(node)?;
        let links = self.link_list(node)?;
        self.b
            .add_route(
                zone,
                NetPoint::Zone(src),
                NetPoint::Zone(dst),
                links,
                Some((gw_src, gw_dst)),
                symmetrical,
            )
            .map_err(|e| self.err_at(node, None, e))
    }

    /// `<host_link id up down>` in a `routing="Cluster"` zone: the host's private links (names of
    /// stored links, e.g. `l_UP` and `l_DOWN`).
    fn host_link(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["id", "up", "down"])?;
        self.no_children(node)?;
        let host = self.point_in(node, "id", zone)?;
        let link = |name: &str| -> Res<sim_core::platform::LinkId> {
            let value = self.req(node, name)?;
            self.b
                .resolve_link(value, None)
                .map_err(|e| self.err_at(node, Some(name), e))
        };
        let (up, down) = (link("up")?, link("down")?);
        self.b
            .set_star_links(zone, host, vec![up], vec![down], None)
            .map_err(|e| self.err_at(node, Some("id"), e))
    }

    /// `<backbone id bandwidth latency>` in a `routing="Cluster"` zone (a SHARED link).
    fn backbone(&mut self, node: Node, zone: ZoneId) -> Res<()> {
        self.check_attrs(node, &["id", "bandwidth", "latency"])?;
        self.no_children(node)?;
        let id = self.req(node, "id")?;
        let bw = self.quantity(node, "bandwidth", self.req(node, "bandwidth")?, Quantity::Bandwidth)?;
        let bw = self.positive(node, "bandwidth", bw)?;
        let lat = match self.opt(node, "latency") {
            Some(v) => self.quantity(node, "latency", v, Quantity::Time)?,
            None => 0.0,
        };
        let lat = self.non_negative(node, "latency", lat)?;
        let (link, _) = self
            .b
            .add_link(id, bw, lat, LinkPolicy::Shared, LinkProfiles::default())
            .map_err(|e| self.err_at(node, Some("id"), e))?;
        self.b.set_backbone(zone, link).map_err(|e| self.err_at(node, None, e))
    }

    /// An optional bandwidth/latency pair that creates a link when either is positive (SimGrid's
    /// rule for backbones and loopbacks); the bandwidth must then be positive.
    fn optional_link(&self, node: Node, bw_name: &str, lat_name: &str) -> Res<Option<(f64, f64)>> {
        let bw = match self.opt(node, bw_name) {
            Some(v) => self.non_negative(node, bw_name, self.quantity(node, bw_name, v, Quantity::Bandwidth)?)?,
            None => 0.0,
        };
        let lat = match self.opt(node, lat_name) {
            Some(v) => self.non_negative(node, lat_name, self.quantity(node, lat_name, v, Quantity::Time)?)?,
            None => 0.0,
        };
        if bw > 0.0 || lat > 0.0 {
            Ok(Some((self.positive(node, bw_name, bw)?, lat)))
        } else {
            Ok(None)
        }
    }

    /// `<cluster>`: with `topology="FLAT"` (the default), a Star zone expanded as SimGrid 3.32
    /// does (see [`Builder::fill_cluster`]), `topo_parameters` ignored; with TORUS, FAT_TREE or
    /// DRAGONFLY, see [`Ctx::topology_cluster`]. `prop` children are
    /// and given to every host, with every pstate's speed, as SimGrid 3.32 does.
    fn cluster(&mut self, node: Node, parent: Option<ZoneId>) -> Res<()> {
        let first_host = self.b.platform.hosts.len();
        let template = self.cluster_zone(node, parent)?;
        for h in &mut self.b.platform.hosts[first_host..] {
            h.pstate_speeds.clone_from(&template.pstate_speeds);
            h.properties.clone_from(&template.properties);
        }
        Ok(())
    }

    /// [`Ctx::cluster`]'s zone, links and hosts; returns the host every cluster host copies its
    /// pstate speeds and properties from.
    fn cluster_zone(&mut self, node: Node, parent: Option<ZoneId>) -> Res<Host> {
        self.check_attrs(
            node,
            &[
                "id",
                "prefix",
                "suffix",
                "radical",
                "speed",
                "core",
                "bw",
                "lat",
                "sharing_policy",
                "topology",
                "topo_parameters",
                "bb_bw",
                "bb_lat",
                "bb_sharing_policy",
                "router_id",
                "limiter_link",
                "loopback_bw",
                "loopback_lat",
            ],
        )?;
        let id = self.req(node, "id")?.to_string();
        let prefix = self.req(node, "prefix")?.to_string();
        let suffix = self.req(node, "suffix")?.to_string();
        let radical = self.req(node, "radical")?;
        let radicals = parse_radicals(radical).map_err(|reason| {
            self.err_at(
                node,
                Some("radical"),
                ErrorKind::BadValue {
                    value: radical.into(),
                    reason,
                },
            )
        })?;
        let topology = node.attribute("topology").unwrap_or("FLAT");
        let topology = self.choice(node, "topology", topology, &["FLAT", "TORUS", "FAT_TREE", "DRAGONFLY"])?;
        let speed_text = self.req(node, "speed")?;
        let mut speeds = Vec::new();
        for part in speed_text.split(',') {
            speeds.push(self.positive(node, "speed", self.quantity(node, "speed", part, Quantity::Speed)?)?);
        }
        let speed = speeds.first().copied().unwrap_or(1.0);
        let cores = match node.attribute("core") {
            Some(v) => self.integer(node, "core", v, 1)?.min(u32::MAX as i64) as u32,
            None => 1,
        };
        let bw = self.positive(
            node,
            "bw",
            self.quantity(node, "bw", self.req(node, "bw")?, Quantity::Bandwidth)?,
        )?;
        let lat = self.non_negative(
            node,
            "lat",
            self.quantity(node, "lat", self.req(node, "lat")?, Quantity::Time)?,
        )?;
        let policy = self
            .policy(node, "sharing_policy", &["SHARED", "SPLITDUPLEX", "FATPIPE"])?
            .unwrap_or(LinkPolicy::SplitDuplex);
        let bb_policy = self
            .policy(node, "bb_sharing_policy", &["SHARED", "FATPIPE"])?
            .unwrap_or(LinkPolicy::Shared);
        let backbone = self
            .optional_link(node, "bb_bw", "bb_lat")?
            .map(|(bw, lat)| (bw, lat, bb_policy));
        let loopback = self.optional_link(node, "loopback_bw", "loopback_lat")?;
        let limiter = match self.opt(node, "limiter_link") {
            Some(v) => {
                let bw = self.non_negative(
                    node,
                    "limiter_link",
                    self.quantity(node, "limiter_link", v, Quantity::Bandwidth)?,
                )?;
                (bw > 0.0).then_some(bw)
            }
            None => None,
        };
        let router = self.opt(node, "router_id").map(str::to_string);
        // As SimGrid 3.32's cluster creation, every host gets every pstate's speed (starting
        // at pstate 0) and the cluster's properties (the energy plugin's among them).
        let mut properties = BTreeMap::new();
        for child in self.elements(node)? {
            if tag(child) != "prop" {
                return Err(self.misplaced(child, node));
            }
            let (key, value) = self.prop(child)?;
            properties.insert(key, value);
        }
        let mut template = Host::new(format!("{prefix}{suffix}"), speed);
        if speeds.len() > 1 {
            template.pstate_speeds = speeds;
        }
        template.properties = properties;
        if let Err(reason) = sim_core::energy::HostPower::from_host(&template) {
            let key = if reason.contains(sim_core::energy::WATTAGE_OFF) {
                sim_core::energy::WATTAGE_OFF
            } else {
                sim_core::energy::WATTAGE_PER_STATE
            };
            let prop = self
                .elements(node)?
                .into_iter()
                .find(|c| tag(*c) == "prop" && c.attribute("id") == Some(key))
                .unwrap_or(node);
            let value = template.properties.get(key).cloned().unwrap_or_default();
            return Err(self.err_at(prop, Some("value"), ErrorKind::BadValue { value, reason }));
        }
        if topology != "FLAT" {
            let links = ClusterLinks {
                id,
                radicals,
                bandwidth: bw,
                latency: lat,
                split: policy == LinkPolicy::SplitDuplex,
                loopback,
                limiter,
            };
            let host = |name: String| {
                let mut h = Host::new(name, speed);
                h.cores = cores;
                h
            };
            let hosts: Vec<Host> = links
                .radicals
                .iter()
                .map(|r| host(format!("{prefix}{r}{suffix}")))
                .collect();
            self.topology_cluster(node, parent, topology, links, hosts)?;
            return Ok(template);
        }
        let zone = match parent {
            Some(p) => self.b.add_zone(p, &id, ZoneRouting::Star),
            None => self.b.configure_root(&id, ZoneRouting::Star),
        }
        .map_err(|e| self.err_at(node, Some("id"), e))?;
        let spec = ClusterSpec {
            id,
            prefix,
            suffix,
            radicals,
            speed,
            cores,
            bw,
            lat,
            policy,
            backbone,
            loopback,
            limiter,
            router: router.clone(),
        };
        self.b.fill_cluster(zone, &spec).map_err(|(part, e)| {
            let field = match part {
                ClusterPart::Host => "radical",
                ClusterPart::Link => "id",
                ClusterPart::Router if router.is_some() => "router_id",
                ClusterPart::Router => "id",
            };
            self.err_at(node, Some(field), e)
        })?;
        Ok(template)
    }

    /// A `<cluster>` with `topology` TORUS, FAT_TREE or DRAGONFLY: a Full zone holding the
    /// hosts, the topology's links and one route per ordered host pair, all as SimGrid 3.32
    /// builds them (see [`crate::topology`]). SimGrid creates no backbone and no router for
    /// these clusters, so `bb_*` and `router_id` are refused rather than ignored; the radical
    /// must list exactly as many hosts as the topology has (SimGrid aborts with fewer and
    /// ignores the extra ones).
    fn topology_cluster(
        &mut self,
        node: Node,
        parent: Option<ZoneId>,
        topology: &str,
        links: ClusterLinks,
        hosts: Vec<Host>,
    ) -> Res<()> {
        for attr in ["bb_bw", "bb_lat", "bb_sharing_policy", "router_id"] {
            if let Some(value) = self.opt(node, attr) {
                return Err(self.err_at(
                    node,
                    Some(attr),
                    ErrorKind::BadValue {
                        value: value.into(),
                        reason: format!(
                            "a {topology} cluster has no backbone and no router (SimGrid 3.32 ignores \
                             this attribute there): remove it"
                        ),
                    },
                ));
            }
        }
        let parameters = self.req(node, "topo_parameters")?;
        let bad = |ctx: &Self, reason: String| {
            ctx.err_at(
                node,
                Some("topo_parameters"),
                ErrorKind::BadValue {
                    value: parameters.into(),
                    reason,
                },
            )
        };
        let shape = Topology::parse(topology, parameters).map_err(|r| bad(self, r))?;
        shape.check_hosts(hosts.len(), topology, parameters).map_err(|reason| {
            self.err_at(
                node,
                Some("radical"),
                ErrorKind::BadValue {
                    value: node.attribute("radical").unwrap_or("").into(),
                    reason,
                },
            )
        })?;
        let layout = shape.layout(&links, &mut self.counters);
        let layout = layout.map_err(|r| bad(self, r))?;
        let zone = match parent {
            Some(p) => self.b.add_zone(p, &links.id, ZoneRouting::Full),
            None => self.b.configure_root(&links.id, ZoneRouting::Full),
        }
        .map_err(|e| self.err_at(node, Some("id"), e))?;
        topology::fill_zone(&mut self.b, zone, hosts, &layout).map_err(|(part, e)| {
            let field = match part {
                topology::Part::Host => Some("radical"),
                topology::Part::Link => Some("id"),
                topology::Part::Route => None,
            };
            self.err_at(node, field, e)
        })
    }

    /// `<trace id periodicity [file]>text</trace>`: a named profile for `trace_connect`.
    fn trace(&mut self, node: Node) -> Res<()> {
        self.check_attrs(node, &["id", "file", "periodicity"])?;
        let id = self.req(node, "id")?.to_string();
        let periodicity_text = self.req(node, "periodicity")?;
        let periodicity: f64 = periodicity_text
            .trim()
            .parse()
            .ok()
            .filter(|p: &f64| p.is_finite())
            .ok_or_else(|| {
                self.err_at(
                    node,
                    Some("periodicity"),
                    ErrorKind::BadValue {
                        value: periodicity_text.into(),
                        reason: "expected a number of seconds".into(),
                    },
                )
            })?;
        let mut text = String::new();
        for child in node.children() {
            match child.kind() {
                NodeKind::Text => text.push_str(child.text().unwrap_or("")),
                NodeKind::Element => return Err(self.misplaced(child, node)),
            }
        }
        let profile = match self.profile_file(node, "file")? {
            Some(p) => p,
            None => parse_profile_with_periodicity(&text, Some(periodicity)).map_err(|e| {
                // Lines of inline traces count from the line of the <trace> tag.
                let start = self.line_at(node.position());
                PlatformError {
                    file: self.file.to_string(),
                    line: Some(if e.line > 0 { start + e.line - 1 } else { start }),
                    element: Some(describe(node)),
                    field: None,
                    kind: ErrorKind::Profile {
                        path: "<inline>".into(),
                        line: e.line,
                        message: e.message,
                    },
                }
            })?,
        };
        if self.traces.insert(id.clone(), profile).is_some() {
            return Err(self.err_at(
                node,
                Some("id"),
                ErrorKind::Duplicate {
                    kind: "trace",
                    name: id,
                },
            ));
        }
        Ok(())
    }

    /// `<trace_connect [kind=HOST_AVAIL] trace element>`: applied after the whole file is read
    /// (as SimGrid does), overriding any `*_file` attribute of the element.
    fn trace_connect(&mut self, node: Node) -> Res<()> {
        self.check_attrs(node, &["kind", "trace", "element"])?;
        self.no_children(node)?;
        let kind = node.attribute("kind").unwrap_or("HOST_AVAIL");
        let kind = self.choice(
            node,
            "kind",
            kind,
            &["HOST_AVAIL", "SPEED", "LINK_AVAIL", "BANDWIDTH", "LATENCY"],
        )?;
        let trace = self.req(node, "trace")?;
        if !self.traces.contains_key(trace) {
            return Err(self.err_at(
                node,
                Some("trace"),
                ErrorKind::Unknown {
                    kind: "trace",
                    name: trace.into(),
                },
            ));
        }
        let element = self.req(node, "element")?;
        self.connects.push(Connect {
            kind: kind.into(),
            trace: trace.into(),
            element: element.into(),
            line: self.line_at(node.position()),
            desc: describe(node),
        });
        Ok(())
    }

    fn apply_connects(&mut self) -> Res<()> {
        for c in std::mem::take(&mut self.connects) {
            let profile = self.traces.get(&c.trace).cloned();
            let unknown = |kind: &'static str| PlatformError {
                file: self.file.to_string(),
                line: Some(c.line),
                element: Some(c.desc.clone()),
                field: Some(Field::Attribute("element".into())),
                kind: ErrorKind::Unknown {
                    kind,
                    name: c.element.clone(),
                },
            };
            match c.kind.as_str() {
                "HOST_AVAIL" | "SPEED" => {
                    let id = self.b.platform.host_id(&c.element).ok_or_else(|| unknown("host"))?;
                    let host = &mut self.b.platform.hosts[id.0 as usize];
                    if c.kind == "SPEED" {
                        host.speed_profile = profile;
                    } else {
                        host.state_profile = profile;
                    }
                }
                _ => {
                    let links = self.b.links_named(&c.element);
                    if links.is_empty() {
                        return Err(unknown("link"));
                    }
                    for l in links {
                        let link = &mut self.b.platform.links[l.0 as usize];
                        match c.kind.as_str() {
                            "LINK_AVAIL" => link.state_profile = profile.clone(),
                            "BANDWIDTH" => link.bandwidth_profile = profile.clone(),
                            _ => link.latency_profile = profile.clone(),
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn node_direction<'n>(node: Node<'n, '_>) -> Option<&'n str> {
    node.attribute("direction")
}

#[cfg(test)]
mod pstate_tests {
    use crate::{parse_simgrid_xml, ErrorKind, NoFiles};

    /// A platform with one host (on line 4) whose attributes are `host_attrs`.
    fn parse(host_attrs: &str) -> Result<sim_core::platform::Platform, crate::PlatformError> {
        let text = format!(
            "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
             <host id=\"h\" {host_attrs}/>\n</zone>\n</platform>\n"
        );
        parse_simgrid_xml(&text, "p.xml", &mut NoFiles)
    }

    #[test]
    fn zero_speed_pstates_not_in_use_are_accepted() {
        // energy_boot.xml's MyHost1: pstates 3 and 4 (boot, shutdown) have speed 0.
        let p = parse(r#"speed="100.0Mf,50.0Mf,20.0Mf,                    0f,0f" pstate="0""#).unwrap();
        assert_eq!(p.hosts[0].speed, 100e6);
        let p = parse(r#"speed="0f, 50.0Mf,0f" pstate="1""#).unwrap();
        assert_eq!(p.hosts[0].speed, 50e6);
    }

    #[test]
    fn zero_speed_pstate_in_use_is_refused() {
        let e = parse(r#"speed="100.0Mf,50.0Mf,20.0Mf, 0f,0f" pstate="3""#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.xml:4: host 'h': attribute 'speed': bad value \"0f\": pstate 3 is the one in use \
             (attribute 'pstate'), so its speed must be positive, got 0 (only pstates not in use \
             may have speed 0)"
        );
        assert!(matches!(e.kind, ErrorKind::BadValue { .. }));
        // Default pstate 0.
        let e = parse(r#"speed="0f,1Gf""#).unwrap_err();
        assert!(e.to_string().contains("pstate 0 is the one in use"), "{e}");
        // A single speed keeps the plain message.
        assert_eq!(
            parse(r#"speed="0f""#).unwrap_err().to_string(),
            "p.xml:4: host 'h': attribute 'speed': must be positive, got 0"
        );
    }

    #[test]
    fn negative_or_non_finite_pstates_are_refused_even_when_not_in_use() {
        assert_eq!(
            parse(r#"speed="1Gf,-5Mf" pstate="0""#).unwrap_err().to_string(),
            "p.xml:4: host 'h': attribute 'speed': must not be negative, got -5000000"
        );
        let e = parse(r#"speed="1Gf,1e999f" pstate="0""#).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadUnit(_)), "{e}");
        let e = parse(r#"speed="1Gf,0f" pstate="2""#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.xml:4: host 'h': attribute 'pstate': bad value \"2\": the host has 2 pstate(s)"
        );
    }

    /// The byte copy of SimGrid 3.32's examples/platforms/energy_boot.xml shipped for the
    /// agreement suite loads (MyHost1 at pstate 0: 100 Mf).
    #[test]
    fn simgrid_energy_boot_example_loads() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/platforms/simgrid-examples/energy_boot.xml");
        let p = crate::load_platform(&path).unwrap();
        let speeds: Vec<(&str, f64)> = p.hosts.iter().map(|h| (h.name.as_str(), h.speed)).collect();
        assert_eq!(speeds, [("MyHost1", 100e6), ("MyHost2", 100e6)]);
        assert_eq!(p.hosts[0].pstate_speeds, [100e6, 50e6, 20e6, 0.0, 0.0]);
        assert_eq!(p.hosts[1].pstate_count(), 1);
    }

    fn example(name: &str) -> sim_core::platform::Platform {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/platforms/simgrid-examples")
            .join(name);
        crate::load_platform(&path).unwrap()
    }

    #[test]
    fn energy_examples_keep_pstates_and_power_properties() {
        use sim_core::energy::{HostPower, PowerRange};
        // energy_platform.xml: MyHost1, 4 cores at "100.0Mf,50.0Mf,20.0Mf", pstate 0,
        // "100.0:93.33333333333333:200.0, 93.0:90.0:170.0, 90.0:90.0:150.0", off 10 W.
        let p = example("energy_platform.xml");
        let h = &p.hosts[0];
        assert_eq!(
            (h.pstate_speeds.as_slice(), h.pstate, h.cores),
            (&[100e6, 50e6, 20e6][..], 0, 4)
        );
        let power = HostPower::from_host(h).unwrap().unwrap();
        assert_eq!(power.off, 10.0);
        assert_eq!(
            power.ranges[1],
            PowerRange {
                idle: 93.0,
                epsilon: 90.0,
                full: 170.0
            }
        );
        // energy_cluster.xml: the cluster's speeds and properties go to both hosts.
        let p = example("energy_cluster.xml");
        assert_eq!(p.hosts.len(), 2);
        for h in &p.hosts {
            assert_eq!(h.pstate_speeds, [100e6, 50e6, 20e6], "{}", h.name);
            assert_eq!(h.cores, 4);
            let power = HostPower::from_host(h).unwrap().unwrap();
            assert_eq!(
                power.ranges[2],
                PowerRange {
                    idle: 90.0,
                    epsilon: 90.0,
                    full: 150.0
                }
            );
        }
    }

    #[test]
    fn bad_power_property_is_reported_at_its_line() {
        let text = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
                    <host id=\"h\" speed=\"1Gf,2Gf\">\n<prop id=\"wattage_per_state\" value=\"1:2\"/>\n</host>\n\
                    </zone>\n</platform>\n";
        let e = crate::parse_simgrid_xml(text, "p.xml", &mut crate::NoFiles)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p.xml:5:") && e.contains("1 power profile(s)"), "{e}");
    }

    #[test]
    fn link_power_is_parsed_and_bad_values_are_reported_at_their_line() {
        use sim_core::energy::LinkPower;
        // energy_platform.xml's "bus" link: "1:3".
        let p = example("energy_platform.xml");
        let bus = p.link_id("bus").unwrap();
        assert_eq!(p.links[bus.0 as usize].power, Some(LinkPower { idle: 1.0, busy: 3.0 }));
        let link = |policy: &str, prop: &str, value: &str| {
            let text = format!(
                "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
                 <link id=\"l\" bandwidth=\"1MBps\" sharing_policy=\"{policy}\">\n\
                 <prop id=\"{prop}\" value=\"{value}\"/>\n</link>\n</zone>\n</platform>\n"
            );
            crate::parse_simgrid_xml(&text, "p.xml", &mut crate::NoFiles)
        };
        let fat = link("FATPIPE", "wattage_range", "2:4").unwrap();
        assert_eq!(fat.links[0].power, Some(LinkPower { idle: 2.0, busy: 4.0 }));
        for (policy, prop, value, part) in [
            ("SHARED", "wattage_range", "1:x", "busy value is not a number"),
            ("SHARED", "wattage_range", "1:2:3", "must be 'idle:busy'"),
            (
                "SHARED",
                "wattage_off",
                "10",
                "not used by SimGrid 3.32's link energy plugin",
            ),
            ("SPLITDUPLEX", "wattage_range", "1:3", "SPLITDUPLEX"),
        ] {
            let e = link(policy, prop, value).unwrap_err().to_string();
            assert!(
                e.starts_with("p.xml:5:") && e.contains("link 'l'") && e.contains(part),
                "{e}"
            );
        }
    }
}
