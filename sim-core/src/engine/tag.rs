//! [`Tag`]: how an application labels the activities it starts.

/// An application's label for an engine activity: an index (a worker, a job, a processing
/// element, a pipeline action) and a small kind code (what the activity is for: a request, an
/// exec, a timer), packed into the `u64` that [`Engine`](super::Engine)'s `start_exec`,
/// `start_comm`, `start_io`, `sleep` and `sleep_until_on` take and that the activity's
/// [`Notification`](super::Notification) hands back unchanged. Every application that needs
/// more than a bare index packs it here, so that there is one encoding.
///
/// The engine only stores a tag and hands it back: it plays no part in the order of events,
/// and two runs whose applications tag differently see the same events at the same dates.
///
/// Bit layout of [`Tag::bits`]: the kind in the low [`Tag::KIND_BITS`] (3) bits, the index in
/// the 61 bits above.
///
/// ```text
///  63                                              3 2      0
/// +-------------------------------------------------+--------+
/// |                      index                      |  kind  |
/// +-------------------------------------------------+--------+
/// ```
///
/// Limits: a kind from 0 to [`Tag::MAX_KIND`] (7), an index from 0 to [`Tag::MAX_INDEX`]
/// (2^61 − 1); [`Tag::new`] panics beyond them rather than let two labels share a tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tag(u64);

impl Tag {
    /// Bits of the kind code, the low ones.
    pub const KIND_BITS: u32 = 3;
    /// The largest kind code.
    pub const MAX_KIND: u8 = (1 << Tag::KIND_BITS) - 1;
    /// The largest index.
    pub const MAX_INDEX: u64 = u64::MAX >> Tag::KIND_BITS;

    /// The tag of activity kind `kind` of item `index`.
    ///
    /// # Panics
    /// If `kind` is above [`Tag::MAX_KIND`] or `index` above [`Tag::MAX_INDEX`].
    #[inline]
    pub const fn new(index: usize, kind: u8) -> Tag {
        assert!(kind <= Tag::MAX_KIND, "a tag's kind is at most Tag::MAX_KIND (7)");
        assert!(
            index as u64 <= Tag::MAX_INDEX,
            "a tag's index is at most Tag::MAX_INDEX (2^61 - 1)"
        );
        Tag((index as u64) << Tag::KIND_BITS | kind as u64)
    }

    /// The index given to [`Tag::new`].
    #[inline]
    pub const fn index(self) -> usize {
        (self.0 >> Tag::KIND_BITS) as usize
    }

    /// The kind code given to [`Tag::new`].
    #[inline]
    pub const fn kind(self) -> u8 {
        (self.0 & Tag::MAX_KIND as u64) as u8
    }

    /// The `u64` the engine carries.
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The tag whose [`bits`](Tag::bits) are `bits` (a notification's `tag`).
    #[inline]
    pub const fn from_bits(bits: u64) -> Tag {
        Tag(bits)
    }
}

impl From<Tag> for u64 {
    fn from(tag: Tag) -> u64 {
        tag.bits()
    }
}

impl From<u64> for Tag {
    fn from(bits: u64) -> Tag {
        Tag::from_bits(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::Tag;

    #[test]
    fn index_and_kind_come_back_unchanged_up_to_their_limits() {
        let largest = Tag::MAX_INDEX as usize;
        for index in [0, 1, 2, 7, 8, 1 << 32, largest - 1, largest] {
            for kind in 0..=Tag::MAX_KIND {
                let tag = Tag::new(index, kind);
                assert_eq!((tag.index(), tag.kind()), (index, kind));
                assert_eq!(Tag::from(u64::from(tag)), tag);
            }
        }
        // The layout: kind in the low three bits, index above.
        assert_eq!(Tag::new(5, 3).bits(), 5 << 3 | 3);
        assert_eq!(Tag::new(largest, Tag::MAX_KIND).bits(), u64::MAX);
        assert_eq!(Tag::MAX_INDEX, (1 << 61) - 1);
    }

    #[test]
    fn distinct_labels_have_distinct_tags() {
        let mut seen = std::collections::HashSet::new();
        for index in 0..64 {
            for kind in 0..=Tag::MAX_KIND {
                assert!(seen.insert(Tag::new(index, kind).bits()));
            }
        }
    }

    #[test]
    #[should_panic(expected = "kind is at most")]
    fn a_kind_past_the_limit_is_refused() {
        Tag::new(0, Tag::MAX_KIND + 1);
    }

    #[test]
    #[should_panic(expected = "index is at most")]
    fn an_index_past_the_limit_is_refused() {
        Tag::new(Tag::MAX_INDEX as usize + 1, 0);
    }
}
