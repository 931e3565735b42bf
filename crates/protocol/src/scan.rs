//! A cursor over one line in the exact form a peer of this crate writes it (no spaces, fields in
//! declaration order): the fast paths of the message readers. Every method returns `None` on
//! anything else, and the caller then hands the line to serde_json, so the hand-read forms only
//! ever decide *how fast* a line is read, never *what* it means.

use pitboss_cards::{Card, CardSet, Rank, Suit};

pub(crate) struct Cursor<'a> {
    pub b: &'a [u8],
    pub i: usize,
}

/// The card written `[r, s]` (`Td`): what `Rank::from_char` and `Suit::from_char` accept (letters
/// in either case), read from the bytes without their search of a string per character.
#[inline(always)]
pub(crate) fn card_of(r: u8, s: u8) -> Option<Card> {
    let r = match r {
        b'2'..=b'9' => r - b'2',
        b'T' | b't' => 8,
        b'J' | b'j' => 9,
        b'Q' | b'q' => 10,
        b'K' | b'k' => 11,
        b'A' | b'a' => 12,
        _ => return None,
    };
    let s = match s {
        b'c' | b'C' => 0,
        b'd' | b'D' => 1,
        b'h' | b'H' => 2,
        b's' | b'S' => 3,
        _ => return None,
    };
    Some(Card::new(Rank::from_index(r), Suit::from_index(s)))
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b, i: 0 }
    }

    /// Consumes `s` if the line continues with it. A fixed-size literal is compared inline (a
    /// slice comparison calls `memcmp`, which was the top item of the reader's profile).
    #[inline(always)]
    pub fn lit<const N: usize>(&mut self, s: &[u8; N]) -> Option<()> {
        match self.b.get(self.i..self.i + N) {
            Some(b) if b == s => {
                self.i += N;
                Some(())
            }
            _ => None,
        }
    }

    /// The whole line was read.
    pub fn end(&self) -> Option<()> {
        (self.i == self.b.len()).then_some(())
    }

    /// A JSON unsigned integer without leading zeros that fits a `u64`.
    #[inline(always)]
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

    #[inline(always)]
    pub fn small<T: TryFrom<u64>>(&mut self) -> Option<T> {
        T::try_from(self.uint()?).ok()
    }

    #[inline(always)]
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
    #[inline(always)]
    pub fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.lit(b"null").is_some() {
            Some(None)
        } else {
            f(self).map(Some)
        }
    }

    #[inline(always)]
    fn card_chars(&mut self) -> Option<Card> {
        let &[r, s] = self.b.get(self.i..self.i + 2)? else {
            return None;
        };
        let c = card_of(r, s)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_read_as_from_str_reads_them() {
        for r in 0..=255u8 {
            for s in 0..=255u8 {
                let b = [r, s];
                let ours = Cursor::new(&b).card_chars();
                let theirs = std::str::from_utf8(&b)
                    .ok()
                    .and_then(|t| t.parse::<Card>().ok());
                assert_eq!(ours, theirs, "{b:?}");
            }
        }
    }

    #[test]
    fn literals_and_numbers() {
        let mut p = Cursor::new(b"ab12,-7");
        assert!(p.lit(b"abc").is_none());
        assert!(p.lit(b"ab").is_some());
        assert_eq!(p.uint(), Some(12));
        assert!(p.lit(b",").is_some());
        assert_eq!(p.int(), Some(-7));
        assert!(p.end().is_some());
        assert_eq!(Cursor::new(b"18446744073709551616").uint(), None);
        assert_eq!(Cursor::new(b"007").uint(), None);
    }
}
