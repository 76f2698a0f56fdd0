//! The gridsim TOML platform format (documented with an example in `docs/platforms.md`).
//!
//! One root zone (`routing` = Full, Floyd or Dijkstra) holding `[[host]]`s, `[[router]]`s and
//! the `[[route]]`s between them; `[[cluster]]`s are child zones built exactly like SimGrid's
//! `<cluster>`, connected with `[[zone_route]]`s through their routers (or, for a torus, fat
//! tree or dragonfly, which has none, through their hosts). A cluster with `topology` and
//! `topo_parameters` is built by [`crate::topology`], as the XML importer builds one.
//! `[[link]]`s are global. Quantities are SimGrid unit strings (`speed = "1Gf"`) or plain
//! numbers in SI units under the suffixed key (`speed_flops = 1e9`); giving both is an error.
//! Unknown keys are errors.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use sim_core::platform::{Disk, DiskModel, Host, LinkId, NetPoint, Platform, ZoneRouting};
use sim_core::profile::Profile;
use toml::Spanned;

use crate::builder::{parse_radicals, Builder, ClusterPart, ClusterSpec, LinkPolicy, LinkProfiles};
use crate::check_setting;
use crate::error::{line_at_offset, plain_types, toml_key_at, ErrorKind, Field, PlatformError};
use crate::profile_text::parse_profile;
use crate::topology::{self, ClusterLinks, Counters, Topology};
use crate::units::{self, Quantity};
use crate::FileResolver;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlPlatform {
    name: Option<Spanned<String>>,
    routing: Option<Spanned<String>>,
    #[serde(default)]
    config: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    host: Vec<Spanned<TomlHost>>,
    #[serde(default)]
    router: Vec<Spanned<TomlRouter>>,
    #[serde(default)]
    link: Vec<Spanned<TomlLink>>,
    #[serde(default)]
    cluster: Vec<Spanned<TomlCluster>>,
    #[serde(default)]
    route: Vec<Spanned<TomlRoute>>,
    #[serde(default)]
    zone_route: Vec<Spanned<TomlZoneRoute>>,
}

type Text = Option<Spanned<String>>;
type Num = Option<Spanned<f64>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlHost {
    name: Spanned<String>,
    speed: Text,
    speed_flops: Num,
    cores: Option<Spanned<i64>>,
    speed_profile: Option<Spanned<ProfileSpec>>,
    state_profile: Option<Spanned<ProfileSpec>>,
    memory: Text,
    memory_bytes: Num,
    io_buffer: Text,
    io_buffer_bytes: Num,
    #[serde(default)]
    properties: BTreeMap<String, String>,
    #[serde(default)]
    disk: Vec<Spanned<TomlDisk>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlDisk {
    name: Spanned<String>,
    model: Option<Spanned<String>>,
    read_bw: Text,
    read_bw_bytes_per_s: Num,
    write_bw: Text,
    write_bw_bytes_per_s: Num,
    seek_rotation: Text,
    seek_rotation_s: Num,
    transfer_rate: Text,
    transfer_rate_bytes_per_s: Num,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlRouter {
    name: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlLink {
    name: Spanned<String>,
    bandwidth: Text,
    bandwidth_bytes_per_s: Num,
    latency: Text,
    latency_s: Num,
    sharing_policy: Option<Spanned<String>>,
    bandwidth_profile: Option<Spanned<ProfileSpec>>,
    latency_profile: Option<Spanned<ProfileSpec>>,
    state_profile: Option<Spanned<ProfileSpec>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlRoute {
    src: Spanned<String>,
    dst: Spanned<String>,
    links: Spanned<Vec<String>>,
    symmetrical: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlZoneRoute {
    src: Spanned<String>,
    dst: Spanned<String>,
    gw_src: Spanned<String>,
    gw_dst: Spanned<String>,
    links: Spanned<Vec<String>>,
    symmetrical: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlCluster {
    name: Spanned<String>,
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    suffix: String,
    radical: Option<Spanned<String>>,
    topology: Option<Spanned<String>>,
    topo_parameters: Option<Spanned<String>>,
    speed: Text,
    speed_flops: Num,
    cores: Option<Spanned<i64>>,
    bandwidth: Text,
    bandwidth_bytes_per_s: Num,
    latency: Text,
    latency_s: Num,
    sharing_policy: Option<Spanned<String>>,
    backbone_bandwidth: Text,
    backbone_bandwidth_bytes_per_s: Num,
    backbone_latency: Text,
    backbone_latency_s: Num,
    backbone_sharing_policy: Option<Spanned<String>>,
    loopback_bandwidth: Text,
    loopback_bandwidth_bytes_per_s: Num,
    loopback_latency: Text,
    loopback_latency_s: Num,
    limiter_bandwidth: Text,
    limiter_bandwidth_bytes_per_s: Num,
    router: Option<Spanned<String>>,
}

/// A profile: a file name (relative to the platform file), or inline.
#[derive(Deserialize)]
#[serde(untagged)]
enum ProfileSpec {
    File(String),
    Inline(InlineProfile),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InlineProfile {
    /// SimGrid profile text.
    text: Option<String>,
    /// `[date, value]` pairs.
    events: Option<Vec<(f64, f64)>>,
    /// With `events`: SimGrid's LOOPAFTER.
    loop_after: Option<f64>,
    /// With `events`: SimGrid's PERIODICITY.
    periodicity: Option<f64>,
}

type Res<T> = Result<T, PlatformError>;

struct Ctx<'a> {
    text: &'a str,
    file: &'a str,
    files: &'a mut dyn FileResolver,
    b: Builder,
    /// SimGrid's per-process numbering of topology links and fat-tree leaves.
    counters: Counters,
}

/// Parses a gridsim TOML platform. `file` names it in error messages; `files` reads the profile
/// files it references, by the name written in the platform.
pub fn parse_gridsim_toml(text: &str, file: &str, files: &mut dyn FileResolver) -> Result<Platform, PlatformError> {
    let mut ctx = Ctx {
        text,
        file,
        files,
        b: Builder::new(),
        counters: Counters::default(),
    };
    let parsed: TomlPlatform = toml::from_str(text).map_err(|e| PlatformError {
        file: file.to_string(),
        line: e.span().map(|s| ctx.line(s.start)),
        element: None,
        // A type error is about the value of one key: name it.
        field: e
            .span()
            .filter(|_| e.message().contains("invalid type") || e.message().contains("invalid value"))
            .and_then(|s| toml_key_at(text, s.start))
            .map(Field::Key),
        kind: ErrorKind::Toml(plain_types(e.message().trim())),
    })?;
    ctx.build(parsed)?;
    Ok(ctx.b.finish())
}

impl Ctx<'_> {
    fn line(&self, offset: usize) -> usize {
        line_at_offset(self.text, offset)
    }

    fn err(&self, span: Range<usize>, element: &str, field: Option<&str>, kind: ErrorKind) -> PlatformError {
        PlatformError {
            file: self.file.to_string(),
            line: Some(self.line(span.start)),
            element: Some(element.to_string()),
            field: field.map(|f| Field::Key(f.to_string())),
            kind,
        }
    }

    /// A quantity given either as a unit string under `name` or as a number under `num_name`.
    fn quantity(
        &self,
        element: &str,
        text: &Text,
        name: &str,
        num: &Num,
        num_name: &str,
        q: Quantity,
    ) -> Res<Option<(f64, Range<usize>, String)>> {
        match (text, num) {
            (Some(_), Some(n)) => Err(self.err(n.span(), element, Some(num_name), ErrorKind::Conflict(name.into()))),
            (Some(t), None) => {
                let v = units::parse(t.get_ref(), q)
                    .map_err(|e| self.err(t.span(), element, Some(name), ErrorKind::BadUnit(e)))?;
                Ok(Some((v, t.span(), name.to_string())))
            }
            (None, Some(n)) => {
                let v = *n.get_ref();
                if !v.is_finite() {
                    return Err(self.err(
                        n.span(),
                        element,
                        Some(num_name),
                        ErrorKind::BadValue {
                            value: v.to_string(),
                            reason: "not a finite number".into(),
                        },
                    ));
                }
                Ok(Some((v, n.span(), num_name.to_string())))
            }
            (None, None) => Ok(None),
        }
    }

    fn required(
        &self,
        element: &str,
        whole: Range<usize>,
        name: &str,
        value: Option<(f64, Range<usize>, String)>,
    ) -> Res<(f64, Range<usize>, String)> {
        value.ok_or_else(|| self.err(whole, element, Some(name), ErrorKind::Missing))
    }

    fn positive(&self, element: &str, v: (f64, Range<usize>, String)) -> Res<f64> {
        if v.0 > 0.0 {
            Ok(v.0)
        } else {
            Err(self.err(v.1, element, Some(&v.2), ErrorKind::NotPositive(v.0.to_string())))
        }
    }

    fn non_negative(&self, element: &str, v: (f64, Range<usize>, String)) -> Res<f64> {
        if v.0 >= 0.0 {
            Ok(v.0)
        } else {
            Err(self.err(v.1, element, Some(&v.2), ErrorKind::Negative(v.0.to_string())))
        }
    }

    fn cores(&self, element: &str, cores: &Option<Spanned<i64>>) -> Res<u32> {
        match cores {
            None => Ok(1),
            Some(c) if *c.get_ref() >= 1 && *c.get_ref() <= u32::MAX as i64 => Ok(*c.get_ref() as u32),
            Some(c) => Err(self.err(
                c.span(),
                element,
                Some("cores"),
                ErrorKind::NotPositive(c.get_ref().to_string()),
            )),
        }
    }

    fn policy(
        &self,
        element: &str,
        name: &str,
        value: &Option<Spanned<String>>,
        allowed: &[&str],
    ) -> Res<Option<LinkPolicy>> {
        let Some(v) = value else { return Ok(None) };
        if !allowed.contains(&v.get_ref().as_str()) {
            return Err(self.err(
                v.span(),
                element,
                Some(name),
                ErrorKind::BadValue {
                    value: v.get_ref().clone(),
                    reason: format!("expected one of {}", allowed.join(", ")),
                },
            ));
        }
        Ok(LinkPolicy::parse(v.get_ref()))
    }

    fn profile(&mut self, element: &str, name: &str, spec: &Option<Spanned<ProfileSpec>>) -> Res<Option<Profile>> {
        let Some(spec) = spec else { return Ok(None) };
        let span = spec.span();
        let bad = |ctx: &Self, reason: &str| {
            ctx.err(
                span.clone(),
                element,
                Some(name),
                ErrorKind::BadValue {
                    value: "(profile)".into(),
                    reason: reason.into(),
                },
            )
        };
        let (text, path) = match spec.get_ref() {
            ProfileSpec::File(path) => {
                let text = self.files.read_to_string(path).map_err(|message| {
                    self.err(
                        span.clone(),
                        element,
                        Some(name),
                        ErrorKind::ReadFile {
                            path: path.clone(),
                            message,
                        },
                    )
                })?;
                (text, path.clone())
            }
            ProfileSpec::Inline(inline) => match (&inline.text, &inline.events) {
                (Some(_), Some(_)) => return Err(bad(self, "give either `text` or `events`, not both")),
                (None, None) => return Err(bad(self, "give `text` or `events`")),
                (Some(text), None) => {
                    if inline.loop_after.is_some() || inline.periodicity.is_some() {
                        return Err(bad(self, "with `text`, write LOOPAFTER/PERIODICITY inside the text"));
                    }
                    (text.clone(), "<inline>".to_string())
                }
                (None, Some(events)) => {
                    let mut text: String = events.iter().map(|(d, v)| format!("{d:?} {v:?}\n")).collect();
                    match (inline.loop_after, inline.periodicity) {
                        (Some(_), Some(_)) => return Err(bad(self, "give loop_after or periodicity, not both")),
                        (Some(d), None) => text.push_str(&format!("LOOPAFTER {d:?}\n")),
                        (None, Some(p)) => text.push_str(&format!("PERIODICITY {p:?}\n")),
                        (None, None) => {}
                    }
                    (text, "<events>".to_string())
                }
            },
        };
        parse_profile(&text).map(Some).map_err(|e| {
            self.err(
                span.clone(),
                element,
                Some(name),
                ErrorKind::Profile {
                    path,
                    line: e.line,
                    message: e.message,
                },
            )
        })
    }

    fn resolve_links(&self, element: &str, links: &Spanned<Vec<String>>) -> Res<Vec<LinkId>> {
        links
            .get_ref()
            .iter()
            .map(|name| {
                self.b
                    .resolve_link(name, None)
                    .map_err(|e| self.err(links.span(), element, Some("links"), e))
            })
            .collect()
    }

    fn build(&mut self, p: TomlPlatform) -> Res<()> {
        let routing = match &p.routing {
            None => ZoneRouting::Full,
            Some(r) => match r.get_ref().as_str() {
                "Full" => ZoneRouting::Full,
                "Floyd" => ZoneRouting::Floyd,
                "Dijkstra" => ZoneRouting::Dijkstra,
                other => {
                    return Err(self.err(
                        r.span(),
                        "platform",
                        Some("routing"),
                        ErrorKind::BadValue {
                            value: other.into(),
                            reason: "expected Full, Floyd or Dijkstra".into(),
                        },
                    ))
                }
            },
        };
        let (name, name_span) = match &p.name {
            Some(n) => (n.get_ref().clone(), n.span()),
            None => ("root".to_string(), 0..0),
        };
        let root = self
            .b
            .configure_root(&name, routing)
            .map_err(|e| self.err(name_span, "platform", Some("name"), e))?;

        for (key, value) in &p.config {
            let text = match value.get_ref() {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => format!("{f:?}"),
                toml::Value::Boolean(b) => b.to_string(),
                _ => {
                    return Err(self.err(
                        value.span(),
                        "config",
                        Some(key),
                        ErrorKind::BadValue {
                            value: value.get_ref().to_string(),
                            reason: "expected a string, number or boolean".into(),
                        },
                    ))
                }
            };
            check_setting(key, &text)
                .map_err(|why| self.err(value.span(), "config", Some(key), ErrorKind::Setting(why)))?;
            self.b.platform.config.insert(key.clone(), text);
        }

        for h in &p.host {
            self.host(root, h)?;
        }
        for r in &p.router {
            let r = r.get_ref();
            let element = format!("router '{}'", r.name.get_ref());
            self.b
                .add_router(root, r.name.get_ref())
                .map_err(|e| self.err(r.name.span(), &element, Some("name"), e))?;
        }
        for l in &p.link {
            self.link(l)?;
        }
        for c in &p.cluster {
            self.cluster(root, c)?;
        }
        for r in &p.route {
            let whole = r.span();
            let r = r.get_ref();
            let element = format!("route '{}' -> '{}'", r.src.get_ref(), r.dst.get_ref());
            let point = |name: &Spanned<String>, key: &str| -> Res<NetPoint> {
                match self.b.netpoint(name.get_ref()) {
                    Some(p @ (NetPoint::Host(_) | NetPoint::Router(_)))
                        if self.b.platform.routing.zone_of(p) == Some(root) =>
                    {
                        Ok(p)
                    }
                    Some(_) => Err(self.err(
                        name.span(),
                        &element,
                        Some(key),
                        ErrorKind::Routing(format!(
                            "'{}' is not a host or router of the root zone (use zone_route for clusters)",
                            name.get_ref()
                        )),
                    )),
                    None => Err(self.err(
                        name.span(),
                        &element,
                        Some(key),
                        ErrorKind::Unknown {
                            kind: "host or router",
                            name: name.get_ref().clone(),
                        },
                    )),
                }
            };
            let (src, dst) = (point(&r.src, "src")?, point(&r.dst, "dst")?);
            let links = self.resolve_links(&element, &r.links)?;
            self.b
                .add_route(root, src, dst, links, None, r.symmetrical.unwrap_or(true))
                .map_err(|e| self.err(whole, &element, None, e))?;
        }
        for r in &p.zone_route {
            let whole = r.span();
            let r = r.get_ref();
            let element = format!("zone_route '{}' -> '{}'", r.src.get_ref(), r.dst.get_ref());
            let zone = |name: &Spanned<String>, key: &str| -> Res<sim_core::platform::ZoneId> {
                match self.b.netpoint(name.get_ref()) {
                    Some(NetPoint::Zone(z)) if self.b.platform.routing.zone_parent(z) == Some(root) => Ok(z),
                    _ => Err(self.err(
                        name.span(),
                        &element,
                        Some(key),
                        ErrorKind::Unknown {
                            kind: "cluster",
                            name: name.get_ref().clone(),
                        },
                    )),
                }
            };
            let (src, dst) = (zone(&r.src, "src")?, zone(&r.dst, "dst")?);
            let gateway = |name: &Spanned<String>, key: &str, z| -> Res<NetPoint> {
                match self.b.netpoint(name.get_ref()) {
                    Some(p @ (NetPoint::Host(_) | NetPoint::Router(_))) if self.b.platform.routing.is_inside(p, z) => {
                        Ok(p)
                    }
                    _ => Err(self.err(
                        name.span(),
                        &element,
                        Some(key),
                        ErrorKind::Routing(format!(
                            "'{}' is not a host or router of cluster '{}'",
                            name.get_ref(),
                            self.b.platform.routing.zone_name(z)
                        )),
                    )),
                }
            };
            let (gs, gd) = (gateway(&r.gw_src, "gw_src", src)?, gateway(&r.gw_dst, "gw_dst", dst)?);
            let links = self.resolve_links(&element, &r.links)?;
            self.b
                .add_route(
                    root,
                    NetPoint::Zone(src),
                    NetPoint::Zone(dst),
                    links,
                    Some((gs, gd)),
                    r.symmetrical.unwrap_or(true),
                )
                .map_err(|e| self.err(whole, &element, None, e))?;
        }
        Ok(())
    }

    fn host(&mut self, root: sim_core::platform::ZoneId, h: &Spanned<TomlHost>) -> Res<()> {
        let whole = h.span();
        let h = h.get_ref();
        let element = format!("host '{}'", h.name.get_ref());
        let el = element.as_str();
        let speed = self.quantity(el, &h.speed, "speed", &h.speed_flops, "speed_flops", Quantity::Speed)?;
        let speed = self.positive(el, self.required(el, whole.clone(), "speed", speed)?)?;
        let mut host = Host::new(h.name.get_ref().clone(), speed);
        host.cores = self.cores(el, &h.cores)?;
        host.speed_profile = self.profile(el, "speed_profile", &h.speed_profile)?;
        host.state_profile = self.profile(el, "state_profile", &h.state_profile)?;
        if let Some(m) = self.quantity(el, &h.memory, "memory", &h.memory_bytes, "memory_bytes", Quantity::Size)? {
            host.memory_bytes = Some(self.positive(el, m)?);
        }
        if let Some(m) = self.quantity(
            el,
            &h.io_buffer,
            "io_buffer",
            &h.io_buffer_bytes,
            "io_buffer_bytes",
            Quantity::Size,
        )? {
            host.io_buffer_bytes = Some(self.non_negative(el, m)?);
        }
        host.properties = h.properties.clone();
        // SimGrid's energy properties (one pstate: TOML hosts have one speed).
        if let Err(reason) = sim_core::energy::HostPower::from_host(&host) {
            let key = if reason.contains(sim_core::energy::WATTAGE_OFF) {
                sim_core::energy::WATTAGE_OFF
            } else {
                sim_core::energy::WATTAGE_PER_STATE
            };
            let value = host.properties.get(key).cloned().unwrap_or_default();
            return Err(self.err(whole, el, Some("properties"), ErrorKind::BadValue { value, reason }));
        }
        let mut disks = Vec::new();
        for d in &h.disk {
            let dwhole = d.span();
            let d = d.get_ref();
            let delement = format!("disk '{}' of {element}", d.name.get_ref());
            let de = delement.as_str();
            let model = d.model.as_ref().map_or("shared", |m| m.get_ref().as_str());
            let q = |ctx: &Self, t: &Text, n: &str, num: &Num, nn: &str, kind| -> Res<f64> {
                let v = ctx.quantity(de, t, n, num, nn, kind)?;
                ctx.positive(de, ctx.required(de, dwhole.clone(), n, v)?)
            };
            let model = match model {
                "shared" => DiskModel::Shared {
                    read_bw: q(
                        self,
                        &d.read_bw,
                        "read_bw",
                        &d.read_bw_bytes_per_s,
                        "read_bw_bytes_per_s",
                        Quantity::Bandwidth,
                    )?,
                    write_bw: q(
                        self,
                        &d.write_bw,
                        "write_bw",
                        &d.write_bw_bytes_per_s,
                        "write_bw_bytes_per_s",
                        Quantity::Bandwidth,
                    )?,
                },
                "fcfs" => {
                    let seek = self.quantity(
                        de,
                        &d.seek_rotation,
                        "seek_rotation",
                        &d.seek_rotation_s,
                        "seek_rotation_s",
                        Quantity::Time,
                    )?;
                    DiskModel::FcfsQueue {
                        seek_rotation_s: self
                            .non_negative(de, self.required(de, dwhole.clone(), "seek_rotation", seek)?)?,
                        transfer_rate: q(
                            self,
                            &d.transfer_rate,
                            "transfer_rate",
                            &d.transfer_rate_bytes_per_s,
                            "transfer_rate_bytes_per_s",
                            Quantity::Bandwidth,
                        )?,
                    }
                }
                other => {
                    let span = d.model.as_ref().map_or(dwhole.clone(), |m| m.span());
                    return Err(self.err(
                        span,
                        de,
                        Some("model"),
                        ErrorKind::BadValue {
                            value: other.into(),
                            reason: "expected shared or fcfs".into(),
                        },
                    ));
                }
            };
            if disks.iter().any(|(n, _): &(String, DiskModel)| n == d.name.get_ref()) {
                return Err(self.err(
                    d.name.span(),
                    de,
                    Some("name"),
                    ErrorKind::Duplicate {
                        kind: "disk",
                        name: d.name.get_ref().clone(),
                    },
                ));
            }
            disks.push((d.name.get_ref().clone(), model));
        }
        let id = self
            .b
            .add_host(root, host)
            .map_err(|e| self.err(h.name.span(), el, Some("name"), e))?;
        for (name, model) in disks {
            self.b.platform.add_disk(Disk { name, host: id, model });
        }
        Ok(())
    }

    fn link(&mut self, l: &Spanned<TomlLink>) -> Res<()> {
        let whole = l.span();
        let l = l.get_ref();
        let element = format!("link '{}'", l.name.get_ref());
        let el = element.as_str();
        let bw = self.quantity(
            el,
            &l.bandwidth,
            "bandwidth",
            &l.bandwidth_bytes_per_s,
            "bandwidth_bytes_per_s",
            Quantity::Bandwidth,
        )?;
        let bw = self.positive(el, self.required(el, whole.clone(), "bandwidth", bw)?)?;
        let lat = match self.quantity(el, &l.latency, "latency", &l.latency_s, "latency_s", Quantity::Time)? {
            Some(v) => self.non_negative(el, v)?,
            None => 0.0,
        };
        let policy = self
            .policy(
                el,
                "sharing_policy",
                &l.sharing_policy,
                &["SHARED", "FATPIPE", "SPLITDUPLEX"],
            )?
            .unwrap_or(LinkPolicy::Shared);
        let profiles = LinkProfiles {
            bandwidth: self.profile(el, "bandwidth_profile", &l.bandwidth_profile)?,
            latency: self.profile(el, "latency_profile", &l.latency_profile)?,
            state: self.profile(el, "state_profile", &l.state_profile)?,
        };
        self.b
            .add_link(l.name.get_ref(), bw, lat, policy, profiles)
            .map_err(|e| self.err(l.name.span(), el, Some("name"), e))?;
        Ok(())
    }

    fn optional_link(
        &self,
        el: &str,
        whole: Range<usize>,
        bw: (&Text, &str, &Num, &str),
        lat: Option<(&Text, &str, &Num, &str)>,
    ) -> Res<Option<(f64, f64)>> {
        let b = self.quantity(el, bw.0, bw.1, bw.2, bw.3, Quantity::Bandwidth)?;
        let l = match lat {
            Some(lat) => self.quantity(el, lat.0, lat.1, lat.2, lat.3, Quantity::Time)?,
            None => None,
        };
        let l = match l {
            Some(v) => self.non_negative(el, v)?,
            None => 0.0,
        };
        match b {
            Some(b) => Ok(Some((self.positive(el, b)?, l))),
            None if l > 0.0 => Err(self.err(whole, el, Some(bw.1), ErrorKind::Missing)),
            None => Ok(None),
        }
    }

    fn cluster(&mut self, root: sim_core::platform::ZoneId, c: &Spanned<TomlCluster>) -> Res<()> {
        let whole = c.span();
        let c = c.get_ref();
        let element = format!("cluster '{}'", c.name.get_ref());
        let el = element.as_str();
        let radicals = match &c.radical {
            Some(radical) => Some(parse_radicals(radical.get_ref()).map_err(|reason| {
                self.err(
                    radical.span(),
                    el,
                    Some("radical"),
                    ErrorKind::BadValue {
                        value: radical.get_ref().clone(),
                        reason,
                    },
                )
            })?),
            None => None,
        };
        let speed = self.quantity(el, &c.speed, "speed", &c.speed_flops, "speed_flops", Quantity::Speed)?;
        let speed = self.positive(el, self.required(el, whole.clone(), "speed", speed)?)?;
        let bw = self.quantity(
            el,
            &c.bandwidth,
            "bandwidth",
            &c.bandwidth_bytes_per_s,
            "bandwidth_bytes_per_s",
            Quantity::Bandwidth,
        )?;
        let bw = self.positive(el, self.required(el, whole.clone(), "bandwidth", bw)?)?;
        let lat = match self.quantity(el, &c.latency, "latency", &c.latency_s, "latency_s", Quantity::Time)? {
            Some(v) => self.non_negative(el, v)?,
            None => 0.0,
        };
        let policy = self
            .policy(
                el,
                "sharing_policy",
                &c.sharing_policy,
                &["SHARED", "FATPIPE", "SPLITDUPLEX"],
            )?
            .unwrap_or(LinkPolicy::SplitDuplex);
        let bb_policy = self
            .policy(
                el,
                "backbone_sharing_policy",
                &c.backbone_sharing_policy,
                &["SHARED", "FATPIPE"],
            )?
            .unwrap_or(LinkPolicy::Shared);
        let backbone = self
            .optional_link(
                el,
                whole.clone(),
                (
                    &c.backbone_bandwidth,
                    "backbone_bandwidth",
                    &c.backbone_bandwidth_bytes_per_s,
                    "backbone_bandwidth_bytes_per_s",
                ),
                Some((
                    &c.backbone_latency,
                    "backbone_latency",
                    &c.backbone_latency_s,
                    "backbone_latency_s",
                )),
            )?
            .map(|(b, l)| (b, l, bb_policy));
        let loopback = self.optional_link(
            el,
            whole.clone(),
            (
                &c.loopback_bandwidth,
                "loopback_bandwidth",
                &c.loopback_bandwidth_bytes_per_s,
                "loopback_bandwidth_bytes_per_s",
            ),
            Some((
                &c.loopback_latency,
                "loopback_latency",
                &c.loopback_latency_s,
                "loopback_latency_s",
            )),
        )?;
        let limiter = self
            .optional_link(
                el,
                whole.clone(),
                (
                    &c.limiter_bandwidth,
                    "limiter_bandwidth",
                    &c.limiter_bandwidth_bytes_per_s,
                    "limiter_bandwidth_bytes_per_s",
                ),
                None,
            )?
            .map(|(b, _)| b);
        let cores = self.cores(el, &c.cores)?;
        let shape = self.topology(el, c)?;
        if let Some((shape, name, parameters)) = shape {
            let radicals = radicals.unwrap_or_else(|| (0..shape.hosts() as i64).collect());
            if let Some(radical) = &c.radical {
                shape.check_hosts(radicals.len(), name, parameters).map_err(|reason| {
                    self.err(
                        radical.span(),
                        el,
                        Some("radical"),
                        ErrorKind::BadValue {
                            value: radical.get_ref().clone(),
                            reason,
                        },
                    )
                })?;
            }
            let links = ClusterLinks {
                id: c.name.get_ref().clone(),
                radicals,
                bandwidth: bw,
                latency: lat,
                split: policy == LinkPolicy::SplitDuplex,
                loopback,
                limiter,
            };
            return self.topology_cluster(root, c, el, shape, links, speed, cores);
        }
        let Some(radicals) = radicals else {
            return Err(self.err(whole, el, Some("radical"), ErrorKind::Missing));
        };
        let zone = self
            .b
            .add_zone(root, c.name.get_ref(), ZoneRouting::Star)
            .map_err(|e| self.err(c.name.span(), el, Some("name"), e))?;
        let spec = ClusterSpec {
            id: c.name.get_ref().clone(),
            prefix: c.prefix.clone(),
            suffix: c.suffix.clone(),
            radicals,
            speed,
            cores,
            bw,
            lat,
            policy,
            backbone,
            loopback,
            limiter,
            router: c.router.as_ref().map(|r| r.get_ref().clone()),
        };
        self.b.fill_cluster(zone, &spec).map_err(|(part, e)| {
            let (span, field) = match part {
                ClusterPart::Host => (c.radical.as_ref().map_or(whole.clone(), |r| r.span()), "radical"),
                ClusterPart::Router => match &c.router {
                    Some(r) => (r.span(), "router"),
                    None => (c.name.span(), "name"),
                },
                ClusterPart::Link => (c.name.span(), "name"),
            };
            self.err(span, el, Some(field), e)
        })
    }

    /// A cluster's `topology` and `topo_parameters`: `None` for a flat cluster (no `topology`,
    /// or `FLAT`), else the parsed shape with the topology's name and parameters as written.
    /// `topo_parameters` without a topology, a missing `topo_parameters`, and the backbone and
    /// router fields (a topology cluster has neither, as in SimGrid) are refused.
    fn topology<'c>(&self, el: &str, c: &'c TomlCluster) -> Res<Option<(Topology, &'c str, &'c str)>> {
        let name = c.topology.as_ref().map(|t| t.get_ref().as_str()).unwrap_or("FLAT");
        if name == "FLAT" {
            return match &c.topo_parameters {
                Some(p) => Err(self.err(
                    p.span(),
                    el,
                    Some("topo_parameters"),
                    ErrorKind::BadValue {
                        value: p.get_ref().clone(),
                        reason: "a flat cluster has no topology parameters: give `topology = \"TORUS\"`, \
                                 \"FAT_TREE\" or \"DRAGONFLY\", or remove this field"
                            .into(),
                    },
                )),
                None => Ok(None),
            };
        }
        let span = c.topology.as_ref().map_or(0..0, |t| t.span());
        if !["TORUS", "FAT_TREE", "DRAGONFLY"].contains(&name) {
            return Err(self.err(
                span.clone(),
                el,
                Some("topology"),
                ErrorKind::BadValue {
                    value: name.into(),
                    reason: "expected one of FLAT, TORUS, FAT_TREE, DRAGONFLY".into(),
                },
            ));
        }
        let refused: [(&str, Option<Range<usize>>); 6] = [
            ("backbone_bandwidth", c.backbone_bandwidth.as_ref().map(|v| v.span())),
            (
                "backbone_bandwidth_bytes_per_s",
                c.backbone_bandwidth_bytes_per_s.as_ref().map(|v| v.span()),
            ),
            ("backbone_latency", c.backbone_latency.as_ref().map(|v| v.span())),
            ("backbone_latency_s", c.backbone_latency_s.as_ref().map(|v| v.span())),
            (
                "backbone_sharing_policy",
                c.backbone_sharing_policy.as_ref().map(|v| v.span()),
            ),
            ("router", c.router.as_ref().map(|v| v.span())),
        ];
        if let Some((field, Some(span))) = refused.into_iter().find(|(_, s)| s.is_some()) {
            return Err(self.err(
                span.clone(),
                el,
                Some(field),
                ErrorKind::BadValue {
                    value: self.text.get(span).unwrap_or("").trim_matches('"').to_string(),
                    reason: format!(
                        "a {name} cluster has no backbone and no router (SimGrid 3.32 builds none): remove it"
                    ),
                },
            ));
        }
        let Some(parameters) = &c.topo_parameters else {
            return Err(self.err(span, el, Some("topo_parameters"), ErrorKind::Missing));
        };
        let shape = Topology::parse(name, parameters.get_ref()).map_err(|reason| {
            self.err(
                parameters.span(),
                el,
                Some("topo_parameters"),
                ErrorKind::BadValue {
                    value: parameters.get_ref().clone(),
                    reason,
                },
            )
        })?;
        Ok(Some((shape, name, parameters.get_ref().as_str())))
    }

    /// A `[[cluster]]` with a topology: a Full child zone of the root built by
    /// [`topology::fill_zone`], as the XML importer builds `<cluster topology=...>`.
    #[allow(clippy::too_many_arguments)]
    fn topology_cluster(
        &mut self,
        root: sim_core::platform::ZoneId,
        c: &TomlCluster,
        el: &str,
        shape: Topology,
        links: ClusterLinks,
        speed: f64,
        cores: u32,
    ) -> Res<()> {
        let parameters = c.topo_parameters.as_ref().map_or(0..0, |p| p.span());
        let layout = shape.layout(&links, &mut self.counters).map_err(|reason| {
            self.err(
                parameters.clone(),
                el,
                Some("topo_parameters"),
                ErrorKind::BadValue {
                    value: c
                        .topo_parameters
                        .as_ref()
                        .map_or(String::new(), |p| p.get_ref().clone()),
                    reason,
                },
            )
        })?;
        let zone = self
            .b
            .add_zone(root, c.name.get_ref(), ZoneRouting::Full)
            .map_err(|e| self.err(c.name.span(), el, Some("name"), e))?;
        let hosts = links
            .radicals
            .iter()
            .map(|r| {
                let mut h = Host::new(format!("{}{r}{}", c.prefix, c.suffix), speed);
                h.cores = cores;
                h
            })
            .collect();
        topology::fill_zone(&mut self.b, zone, hosts, &layout).map_err(|(part, e)| {
            let (span, field) = match part {
                topology::Part::Host => (
                    c.radical.as_ref().map_or(c.name.span(), |r| r.span()),
                    Some(if c.radical.is_some() { "radical" } else { "prefix" }),
                ),
                topology::Part::Link => (c.name.span(), Some("name")),
                topology::Part::Route => (c.name.span(), None),
            };
            self.err(span, el, field, e)
        })
    }
}
