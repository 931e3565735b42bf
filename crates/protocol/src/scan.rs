//! A cursor over one line in the exact form a peer of this crate writes it (no spaces, fields in
//! declaration order): the fast paths of the message readers. Every method returns `None` on
//! anything else, and the caller then hands the line to serde_json, so the hand-read forms only
//! ever decide *how fast* a line is read, never *what* it means.

use pitboss_cards::{Card, CardSet, Rank, Suit};

pub(crate) struct Cursor<'a> {
    pub b: &'a [u8],
    pub i: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b, i: 0 }
    }

    /// Consumes `s` if the line continues with it.
    #[inline]
    pub fn lit(&mut self, s: &[u8]) -> Option<()> {
        if self.b[self.i..].starts_with(s) {
            self.i += s.len();
            Some(())
        } else {
            None
        }
    }

    /// The whole line was read.
    pub fn end(&self) -> Option<()> {
        (self.i == self.b.len()).then_some(())
    }

    /// A JSON unsigned integer without leading zeros that fits a `u64`.
    #[inline]
    pub fn uint(&mut self) -> Option<u64> {
        let rest = &self.b[self.i..];
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || digits > 20 || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        let mut v = 0u64;
        for c in &rest[..digits] {
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        }
        self.i += digits;
        Some(v)
    }

    pub fn int(&mut self) -> Option<i64> {
        if self.lit(b"-").is_some() {
            let v = self.uint()?;
            if v == 0 {
                return None; // `-0`: let serde decide
            }
            0i64.checked_sub_unsigned(v)
        } else {
            i64::try_from(self.uint()?).ok()
        }
    }

    pub fn small<T: TryFrom<u64>>(&mut self) -> Option<T> {
        T::try_from(self.uint()?).ok()
    }

    pub fn boolean(&mut self) -> Option<bool> {
        if self.lit(b"true").is_some() {
            Some(true)
        } else if self.lit(b"false").is_some() {
            Some(false)
        } else {
            None
        }
    }

    /// `null`, or what `f` reads.
    pub fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.lit(b"null").is_some() {
            Some(None)
        } else {
            f(self).map(Some)
        }
    }

    fn card_chars(&mut self) -> Option<Card> {
        let &[r, s] = self.b.get(self.i..self.i + 2)? else {
            return None;
        };
        let c = Card::new(
            Rank::from_char(char::from(r))?,
            Suit::from_char(char::from(s))?,
        );
        self.i += 2;
        Some(c)
    }

    /// A card string, `"Td"`.
    pub fn card(&mut self) -> Option<Card> {
        self.lit(b"\"")?;
        let c = self.card_chars()?;
        self.lit(b"\"")?;
        Some(c)
    }

    /// A card set string, `"2c 3d"` (no duplicates).
    pub fn card_set(&mut self) -> Option<CardSet> {
        self.lit(b"\"")?;
        let mut set = CardSet::EMPTY;
        if self.lit(b"\"").is_some() {
            return Some(set);
        }
        loop {
            let c = self.card_chars()?;
            if set.contains(c) {
                return None;
            }
            set.insert(c);
            if self.lit(b"\"").is_some() {
                return Some(set);
            }
            self.lit(b" ")?;
        }
    }

    /// A JSON array of what `f` reads, appended to `out`.
    pub fn array<T>(
        &mut self,
        out: &mut Vec<T>,
        mut f: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<()> {
        self.lit(b"[")?;
        if self.lit(b"]").is_some() {
            return Some(());
        }
        loop {
            out.push(f(self)?);
            if self.lit(b"]").is_some() {
                return Some(());
            }
            self.lit(b",")?;
        }
    }
}
