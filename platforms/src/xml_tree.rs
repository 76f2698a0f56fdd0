//! A read-only element tree of an XML document, built from `quick-xml`'s event stream: the
//! part of a DOM that the SimGrid importer walks (elements, their attributes and text, parent
//! links, byte positions for error lines).
//!
//! Why not a full DOM crate: `roxmltree` takes 11–25 ms to build the 54,379 nodes of grid90.xml
//! (1 MB), where a short `gridsim run` on it takes about 35 ms in all; `quick-xml` reads the
//! same events in about 2 ms, and this tree stores only what the importer reads.
//! Well-formedness is `quick-xml`'s (matching end tags, attribute syntax, entity references)
//! plus what is checked here: no attribute name twice in a tag (`quick-xml`'s own check
//! allocates for every element), exactly one root element, no text outside it, no element left
//! open at the end.
//!
//! Values follow the XML rules the importer relies on: attribute values are unescaped and their
//! tab, newline and carriage-return characters become spaces (attribute-value normalization);
//! text is unescaped and CR LF becomes LF. `xmlns` declarations are not attributes. A name with
//! a prefix, or an element under a default `xmlns`, has a namespace; the importer rejects those.

use std::borrow::Cow;
use std::fmt;

use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::error::line_at_offset;

/// "No node" in the sibling and child links.
const NONE: u32 = u32::MAX;

/// A syntax error, at a byte offset of the input.
#[derive(Debug, Clone)]
pub struct XmlError {
    /// Byte offset where the error was found.
    pub pos: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An element.
    Element,
    /// Character data (text or CDATA).
    Text,
}

struct NodeData<'i> {
    kind: NodeKind,
    /// Local name of an element (empty for text).
    name: &'i str,
    namespaced: bool,
    parent: u32,
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    /// This element's attributes: `attrs[attrs_start..attrs_end]`.
    attrs_start: u32,
    attrs_end: u32,
    /// Byte offset of the node's start (the `<` of an element).
    pos: usize,
    /// A text node's content (empty for elements).
    text: Cow<'i, str>,
}

struct AttrData<'i> {
    name: &'i str,
    namespaced: bool,
    value: Cow<'i, str>,
    pos: usize,
}

/// A parsed document.
pub struct Document<'i> {
    input: &'i str,
    nodes: Vec<NodeData<'i>>,
    attrs: Vec<AttrData<'i>>,
    root: u32,
}

/// A node of a [`Document`].
#[derive(Clone, Copy)]
pub struct Node<'a, 'i> {
    doc: &'a Document<'i>,
    id: u32,
}

/// An attribute of an element.
#[derive(Clone, Copy)]
pub struct Attribute<'a, 'i> {
    data: &'a AttrData<'i>,
}

impl<'i> Document<'i> {
    /// Parses `input` (UTF-8). A DOCTYPE is allowed and ignored: entities it declares are not
    /// expanded, so a reference to one is an error (SimGrid platforms use none; the predefined
    /// and character references are replaced).
    pub fn parse(input: &'i str) -> Result<Document<'i>, XmlError> {
        Builder::new(input).run()
    }

    /// The root element.
    pub fn root_element(&self) -> Node<'_, 'i> {
        Node {
            doc: self,
            id: self.root,
        }
    }

    /// The 1-based line of a byte offset.
    pub fn line_at(&self, pos: usize) -> usize {
        line_at_offset(self.input, pos)
    }
}

impl<'a, 'i> Node<'a, 'i> {
    fn data(&self) -> &'a NodeData<'i> {
        &self.doc.nodes[self.id as usize]
    }

    /// Element or text.
    pub fn kind(&self) -> NodeKind {
        self.data().kind
    }

    /// The element's local name (empty for text).
    pub fn name(&self) -> &'a str {
        self.data().name
    }

    /// True for an element in a namespace (prefixed, or under a default `xmlns`).
    pub fn has_namespace(&self) -> bool {
        self.data().namespaced
    }

    /// The value of the attribute `name` without a namespace.
    pub fn attribute(&self, name: &str) -> Option<&'a str> {
        self.attributes()
            .find(|a| a.name() == name && !a.has_namespace())
            .map(|a| a.value())
    }

    /// The element's attributes, in document order.
    pub fn attributes(&self) -> impl Iterator<Item = Attribute<'a, 'i>> + 'a {
        let d = self.data();
        self.doc.attrs[d.attrs_start as usize..d.attrs_end as usize]
            .iter()
            .map(|data| Attribute { data })
    }

    /// The enclosing element (none for the root).
    pub fn parent_element(&self) -> Option<Node<'a, 'i>> {
        let parent = self.data().parent;
        (parent != NONE).then_some(Node {
            doc: self.doc,
            id: parent,
        })
    }

    /// The child nodes, in document order.
    pub fn children(&self) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
        let doc = self.doc;
        let mut next = self.data().first_child;
        std::iter::from_fn(move || {
            (next != NONE).then(|| {
                let node = Node { doc, id: next };
                next = doc.nodes[next as usize].next_sibling;
                node
            })
        })
    }

    /// A text node's content.
    pub fn text(&self) -> Option<&'a str> {
        let d = self.data();
        (d.kind == NodeKind::Text).then_some(&*d.text)
    }

    /// Byte offset of the node's start.
    pub fn position(&self) -> usize {
        self.data().pos
    }
}

impl<'a, 'i> Attribute<'a, 'i> {
    /// Local name.
    pub fn name(&self) -> &'a str {
        self.data.name
    }

    /// True for a prefixed name.
    pub fn has_namespace(&self) -> bool {
        self.data.namespaced
    }

    /// The unescaped, normalized value.
    pub fn value(&self) -> &'a str {
        &self.data.value
    }

    /// Byte offset of the attribute's name.
    pub fn position(&self) -> usize {
        self.data.pos
    }
}

/// One pass over the events.
struct Builder<'i> {
    input: &'i str,
    reader: Reader<&'i [u8]>,
    nodes: Vec<NodeData<'i>>,
    attrs: Vec<AttrData<'i>>,
    /// Open elements, innermost last, with whether a default namespace is in effect there.
    open: Vec<(u32, bool)>,
    root: u32,
    /// The attribute names of the element being read, to find a repeated one. Kept here rather
    /// than left to `quick-xml`, whose check allocates a list for every element (grid90's 50,000
    /// elements: a sixth of the platform's load).
    names_seen: Vec<&'i str>,
}

impl<'i> Builder<'i> {
    fn new(input: &'i str) -> Self {
        let mut reader = Reader::from_str(input);
        let config = reader.config_mut();
        config.trim_text(false);
        config.check_end_names = true;
        config.expand_empty_elements = false;
        // Sized once from the markup count, so the tables never move while they grow (with
        // grid90's 54k nodes, growing by doubling copied and faulted in several megabytes):
        // every element starts with `<` and every attribute holds `=`, and text nodes are
        // at most one more than the tags around them. Pages never written are never touched.
        let count = |byte: u8| input.bytes().filter(|&b| b == byte).count();
        let tags = count(b'<');
        Builder {
            input,
            reader,
            nodes: Vec::with_capacity(2 * tags + 1),
            attrs: Vec::with_capacity(count(b'=')),
            open: Vec::new(),
            root: NONE,
            names_seen: Vec::new(),
        }
    }

    fn error(&self, pos: usize, message: impl Into<String>) -> XmlError {
        XmlError {
            pos,
            message: message.into(),
        }
    }

    /// Byte offset of a slice of the input, if it is one (`quick-xml` reading from a `&str`
    /// borrows from it).
    fn offset_of(&self, slice: &[u8]) -> Option<usize> {
        let base = self.input.as_ptr() as usize;
        let at = slice.as_ptr() as usize;
        (at >= base && at + slice.len() <= base + self.input.len()).then(|| at - base)
    }

    fn run(mut self) -> Result<Document<'i>, XmlError> {
        loop {
            let pos = self.reader.buffer_position() as usize;
            let event = match self.reader.read_event() {
                Ok(event) => event,
                Err(e) => return Err(self.error(self.reader.error_position() as usize, e.to_string())),
            };
            match event {
                Event::Start(start) => {
                    let (id, default_ns) = self.element(&start, pos)?;
                    self.open.push((id, default_ns));
                }
                Event::Empty(start) => {
                    self.element(&start, pos)?;
                }
                // quick-xml has checked that the name matches the innermost open element.
                Event::End(_) if self.open.pop().is_some() => {}
                Event::End(_) => return Err(self.error(pos, "closing tag without an opening one")),
                Event::Text(text) => {
                    let raw = self.input_slice(&text, pos)?;
                    let value = self.unescape(raw, pos)?;
                    self.text(normalize_newlines(value), pos)?;
                }
                Event::CData(data) => {
                    let value = self.input_slice(&data, pos)?;
                    self.text(normalize_newlines(Cow::Borrowed(value)), pos)?;
                }
                Event::Eof => break,
                // Declaration, comments, processing instructions and the DOCTYPE carry nothing
                // the importer reads.
                _ => {}
            }
        }
        if let Some(&(open, _)) = self.open.last() {
            let name = self.nodes[open as usize].name;
            return Err(self.error(
                self.input.len(),
                format!("unexpected end of input: <{name}> is not closed"),
            ));
        }
        if self.root == NONE {
            return Err(self.error(self.input.len(), "no root element"));
        }
        Ok(Document {
            input: self.input,
            nodes: self.nodes,
            attrs: self.attrs,
            root: self.root,
        })
    }

    /// Adds an element (with its attributes) under the innermost open element; returns it and
    /// whether a default namespace is in effect inside it.
    fn element(&mut self, start: &BytesStart<'_>, pos: usize) -> Result<(u32, bool), XmlError> {
        let raw = self.input_slice(start.name().into_inner(), pos)?;
        let (prefixed, name) = split_prefix(raw);
        let mut default_ns = self.open.last().is_some_and(|&(_, d)| d);
        let attrs_start = self.attrs.len() as u32;
        self.names_seen.clear();
        for attr in start.attributes().with_checks(false) {
            let attr = attr.map_err(|e| self.attribute_error(&e, pos, name))?;
            let key = attr.key.into_inner();
            let full_name = self.input_slice(key, pos)?;
            let at = self.offset_of(key).unwrap_or(pos);
            if self.names_seen.contains(&full_name) {
                return Err(self.error(
                    at,
                    format!("attributes of <{name}>: duplicated attribute '{full_name}'"),
                ));
            }
            self.names_seen.push(full_name);
            if key == b"xmlns" {
                default_ns = !attr.value.is_empty(); // `xmlns=""` undeclares it
                continue;
            }
            if key.starts_with(b"xmlns:") {
                continue; // a prefix declaration, not an attribute
            }
            let (prefixed, local) = split_prefix(full_name);
            let raw = self.input_slice(&attr.value, at)?;
            let value = self.unescape(raw, at)?;
            self.attrs.push(AttrData {
                name: local,
                namespaced: prefixed,
                value: normalize_attribute(value),
                pos: at,
            });
        }
        let namespaced = prefixed || default_ns;
        let id = self.push(NodeData {
            kind: NodeKind::Element,
            name,
            namespaced,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            attrs_start,
            attrs_end: self.attrs.len() as u32,
            pos,
            text: Cow::Borrowed(""),
        });
        if self.open.is_empty() {
            if self.root != NONE {
                return Err(self.error(pos, format!("a second root element <{name}>")));
            }
            self.root = id;
        }
        Ok((id, default_ns))
    }

    /// Adds character data under the innermost open element; outside the root only whitespace
    /// may appear.
    fn text(&mut self, value: Cow<'i, str>, pos: usize) -> Result<(), XmlError> {
        if self.open.is_empty() {
            if value.trim().is_empty() {
                return Ok(());
            }
            return Err(self.error(pos, "text outside the root element"));
        }
        self.push(NodeData {
            kind: NodeKind::Text,
            name: "",
            namespaced: false,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            attrs_start: 0,
            attrs_end: 0,
            pos,
            text: value,
        });
        Ok(())
    }

    /// Appends a node as the last child of the innermost open element (if any).
    fn push(&mut self, mut node: NodeData<'i>) -> u32 {
        let id = self.nodes.len() as u32;
        if let Some(&(parent, _)) = self.open.last() {
            node.parent = parent;
            let p = &mut self.nodes[parent as usize];
            let previous = p.last_child;
            p.last_child = id;
            if previous == NONE {
                p.first_child = id;
            } else {
                self.nodes[previous as usize].next_sibling = id;
            }
        }
        self.nodes.push(node);
        id
    }

    /// An attribute syntax error, at its own byte (`quick-xml` counts from the byte after the
    /// element's `<`) and without `quick-xml`'s relative positions in the message.
    fn attribute_error(&self, e: &AttrError, element_pos: usize, element: &str) -> XmlError {
        let (at, what) = match *e {
            AttrError::ExpectedEq(at) => (at, "an attribute name must be followed by `=`".to_string()),
            AttrError::ExpectedValue(at) => (at, "`=` must be followed by a value".to_string()),
            AttrError::UnquotedValue(at) => (at, "an attribute value must be quoted".to_string()),
            AttrError::ExpectedQuote(at, quote) => (at, format!("missing closing quote `{}`", quote as char)),
            // Not raised with `with_checks(false)`: `element` finds repeated names itself.
            AttrError::Duplicated(at, _) => (at, "duplicated attribute".to_string()),
        };
        self.error(element_pos + 1 + at, format!("attributes of <{element}>: {what}"))
    }

    /// Bytes that `quick-xml` read, as the slice of the input they are (reading from a `&str`,
    /// it borrows names, values and text from it, cut at ASCII delimiters, so no UTF-8 check
    /// is needed again).
    fn input_slice(&self, bytes: &[u8], pos: usize) -> Result<&'i str, XmlError> {
        let Some(at) = self.offset_of(bytes) else {
            return Err(self.error(pos, "internal: the XML reader copied a name or value"));
        };
        self.input
            .get(at..at + bytes.len())
            .ok_or_else(|| self.error(pos, "a name or value splits a UTF-8 character"))
    }

    /// Replaces character and predefined entity references (only when there is one).
    fn unescape(&self, raw: &'i str, pos: usize) -> Result<Cow<'i, str>, XmlError> {
        if !raw.as_bytes().contains(&b'&') {
            return Ok(Cow::Borrowed(raw));
        }
        quick_xml::escape::unescape(raw).map_err(|e| self.error(pos, e.to_string()))
    }
}

/// `(has a prefix, local name)` of a qualified name. Names are short: a byte loop beats a
/// string search here.
fn split_prefix(name: &str) -> (bool, &str) {
    match name.bytes().position(|b| b == b':') {
        Some(colon) => (true, &name[colon + 1..]),
        None => (false, name),
    }
}

/// Attribute-value normalization (XML 1.0 §3.3.3): tab, CR and LF become spaces.
fn normalize_attribute(value: Cow<'_, str>) -> Cow<'_, str> {
    if value.contains(['\t', '\n', '\r']) {
        Cow::Owned(value.replace("\r\n", " ").replace(['\t', '\n', '\r'], " "))
    } else {
        value
    }
}

/// End-of-line handling (XML 1.0 §2.11): CR LF and lone CR become LF.
fn normalize_newlines(value: Cow<'_, str>) -> Cow<'_, str> {
    if value.contains('\r') {
        Cow::Owned(value.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_elements_attributes_and_text_with_positions() {
        let xml = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"x.dtd\">\n<a x=\"1 &amp; 2\">\n <b y='\tv\n'/>t&lt;<![CDATA[<c>]]></a>\n";
        let doc = Document::parse(xml).unwrap();
        let a = doc.root_element();
        assert_eq!(a.name(), "a");
        assert_eq!(a.attribute("x"), Some("1 & 2"));
        assert_eq!(doc.line_at(a.position()), 3);
        let kids: Vec<_> = a.children().collect();
        assert_eq!(kids.len(), 4);
        assert_eq!(kids[0].text(), Some("\n "));
        assert_eq!(kids[1].name(), "b");
        assert_eq!(kids[1].attribute("y"), Some(" v "));
        assert_eq!(doc.line_at(kids[1].attributes().next().unwrap().position()), 4);
        assert_eq!(kids[1].parent_element().unwrap().name(), "a");
        assert_eq!(kids[2].text(), Some("t<"));
        assert_eq!(kids[3].text(), Some("<c>"));
        assert!(a.parent_element().is_none());
    }

    #[test]
    fn namespaces_are_marked_and_declarations_are_not_attributes() {
        let doc = Document::parse("<p xmlns:q='u'><q:e q:k='1' k='2'/><f xmlns='v'><g/></f></p>").unwrap();
        let p = doc.root_element();
        assert!(!p.has_namespace());
        assert_eq!(p.attributes().count(), 0);
        let kids: Vec<_> = p.children().collect();
        assert!(kids[0].has_namespace());
        assert_eq!(kids[0].name(), "e");
        assert_eq!(kids[0].attribute("k"), Some("2"));
        assert!(kids[0].attributes().next().unwrap().has_namespace());
        assert!(kids[1].has_namespace());
        assert!(kids[1].children().next().unwrap().has_namespace());
    }

    #[test]
    fn malformed_documents_are_errors_at_their_line() {
        let line = |xml: &str| {
            let e = Document::parse(xml).err().expect("an error");
            line_at_offset(xml, e.pos)
        };
        assert_eq!(line("<a>\n<b>\n</a>"), 3);
        assert_eq!(line(""), 1);
        assert_eq!(line("not xml"), 1);
        assert_eq!(line("<a/>\n<b/>"), 2);
        assert_eq!(line("<a>\n<b>"), 2);
        assert_eq!(line("<a x='1' x='2'/>"), 1);
        assert_eq!(line("<a\n x='1'\n x='2'/>"), 3);
        assert_eq!(line("<a>\n<b\n y=2/></a>"), 3);
        assert_eq!(line("<a>&bogus;</a>"), 1);
        assert_eq!(line("<a>\n</b>"), 2);
        assert_eq!(line("<a/>\n</a>"), 2);
    }
}
