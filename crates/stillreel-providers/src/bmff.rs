//! The workspace's one ISO base media file format box walker (ISO/IEC 14496-12, section 4.2):
//! a model's MP4 clip answer (`mp4.rs`), the render crate's clip check and keyframe reader
//! (MP4) and its HEIC header reader (HEIF) all read their boxes through it. It lives here, the
//! lowest crate both the providers and the render crate may name, and is pure: bytes in, slices
//! of them out.
//!
//! Bounded against hostile input: a box is only a slice of its container (nothing is allocated
//! or read by a declared size), a declared size smaller than its own header or past the end of
//! its container is an error, never a wrap or a panic, so every step of a walk moves forward by
//! at least a header. The walker does not recurse: the readers name each level they descend.
//!
//! Not a crate from the registry: the readers need only the box framing (32- and 64-bit sizes,
//! size 0 running to the end), about 60 lines. The parsers there (`mp4parse`, `mp4`) build a
//! whole model of a movie or read through `Read + Seek`, and none reads HEIF item properties.

/// One box: its four-character type and its body (what follows the size and the type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BmffBox<'a> {
    pub kind: [u8; 4],
    pub body: &'a [u8],
}

/// Why a box could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxError {
    /// Its header or its body runs past the end of its container.
    Cut,
    /// It declares a size smaller than its own header.
    TooSmall,
}

/// The box at the start of `data` and its whole size, header included. A size of 0 runs to the
/// end of `data` (the last box of its container); a size of 1 is followed by a 64-bit size.
pub fn first_box(data: &[u8]) -> Result<(BmffBox<'_>, usize), BoxError> {
    let size = u32_at(data, 0).ok_or(BoxError::Cut)?;
    let kind: [u8; 4] = data
        .get(4..8)
        .and_then(|k| k.try_into().ok())
        .ok_or(BoxError::Cut)?;
    let (header, size) = match size {
        0 => (8, data.len()),
        // A size past the address space is past the end of any container.
        1 => (
            16,
            usize::try_from(u64_at(data, 8).ok_or(BoxError::Cut)?).unwrap_or(usize::MAX),
        ),
        n => (8, n as usize),
    };
    if size < header {
        return Err(BoxError::TooSmall);
    }
    let body = data.get(header..size).ok_or(BoxError::Cut)?;
    Ok((BmffBox { kind, body }, size))
}

/// The boxes laid end to end in `data`, in order. A damaged box is the walk's last item.
pub fn boxes(data: &[u8]) -> Boxes<'_> {
    Boxes { rest: data }
}

/// The iterator of [`boxes`].
#[derive(Debug, Clone)]
pub struct Boxes<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Boxes<'a> {
    type Item = Result<BmffBox<'a>, BoxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match first_box(self.rest) {
            Ok((found, size)) => {
                self.rest = &self.rest[size..];
                Some(Ok(found))
            }
            Err(e) => {
                self.rest = &[];
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for Boxes<'_> {}

/// The body of the first box of `kind` directly inside `data`, looking no further than the
/// first damaged box.
pub fn child<'a>(data: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    boxes(data)
        .map_while(Result::ok)
        .find(|b| &b.kind == kind)
        .map(|b| b.body)
}

/// The big-endian `u16` at `at`, if `data` holds it.
pub fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(
        data.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

/// The big-endian `u32` at `at`, if `data` holds it.
pub fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        data.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

/// The big-endian `u64` at `at`, if `data` holds it.
pub fn u64_at(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(
        data.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = (8 + body.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(body);
        out
    }

    fn kinds(data: &[u8]) -> Vec<Result<[u8; 4], BoxError>> {
        boxes(data).map(|b| b.map(|b| b.kind)).collect()
    }

    #[test]
    fn boxes_walk_in_order_and_stop_at_an_overrun() {
        let mut data = [put(b"ftyp", &[1, 2]), put(b"free", &[])].concat();
        let kinds: Vec<[u8; 4]> = boxes(&data).map_while(Result::ok).map(|b| b.kind).collect();
        assert_eq!(kinds, [*b"ftyp", *b"free"]);
        data.extend_from_slice(&[0, 0, 0, 99, b'm', b'd', b'a', b't']);
        assert!(boxes(&data).any(|b| b.is_err()));
        assert_eq!(boxes(&data).last(), Some(Err(BoxError::Cut)));
    }

    #[test]
    fn sizes_zero_and_64_bit() {
        // Size 0: to the end of the container.
        let data = [&put(b"ftyp", b"isom")[..], b"\0\0\0\0mdat", b"frames"].concat();
        let last = boxes(&data).last().expect("two").expect("whole");
        assert_eq!((&last.kind, last.body), (b"mdat", &b"frames"[..]));
        // A 64-bit size counts its own 16 bytes of header.
        let large = [
            &b"\0\0\0\x01mdat"[..],
            &20u64.to_be_bytes(),
            b"four",
            b"next",
        ]
        .concat();
        let (found, size) = first_box(&large).expect("64-bit");
        assert_eq!((found.body, size), (&b"four"[..], 20));
        // Past the end, past the address space, smaller than its header.
        let far = [&b"\0\0\0\x01mdat"[..], &u64::MAX.to_be_bytes()].concat();
        assert_eq!(first_box(&far), Err(BoxError::Cut));
        let short = [&b"\0\0\0\x01mdat"[..], &15u64.to_be_bytes()].concat();
        assert_eq!(first_box(&short), Err(BoxError::TooSmall));
        assert_eq!(first_box(b"\0\0\0\x04meta"), Err(BoxError::TooSmall));
        assert_eq!(first_box(b"\0\0\0\x01mdat\0\0"), Err(BoxError::Cut));
        assert_eq!(first_box(b"\0\0\0"), Err(BoxError::Cut));
        assert_eq!(kinds(b""), []);
    }

    #[test]
    fn children_are_found_directly_inside() {
        let moov = put(
            b"moov",
            &[put(b"mvhd", b"x"), put(b"trak", &put(b"tkhd", b"y"))].concat(),
        );
        let data = [put(b"ftyp", b"isom"), moov].concat();
        let moov = child(&data, b"moov").expect("moov");
        assert_eq!(child(moov, b"mvhd"), Some(&b"x"[..]));
        assert_eq!(child(moov, b"tkhd"), None, "not directly inside");
        assert_eq!(
            child(child(moov, b"trak").expect("trak"), b"tkhd"),
            Some(&b"y"[..])
        );
        assert_eq!(
            (u16_at(b"\x01\x02", 0), u32_at(b"\x01\x02", 0)),
            (Some(0x0102), None)
        );
        assert_eq!(u32_at(b"\x01", usize::MAX), None);
    }

    /// A small xorshift generator: the same hostile bytes on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Nested boxes, their sizes in all three forms (32-bit, 64-bit, 0 = to the end).
    fn nest(rng: &mut Rng, depth: u32) -> Vec<u8> {
        let body: Vec<u8> = if depth == 0 || rng.below(3) == 0 {
            (0..rng.below(12)).map(|_| rng.below(256) as u8).collect()
        } else {
            (0..1 + rng.below(3))
                .flat_map(|_| nest(rng, depth - 1))
                .collect()
        };
        match rng.below(3) {
            0 => [&(8 + body.len() as u32).to_be_bytes()[..], b"moov", &body].concat(),
            1 => [
                &[0, 0, 0, 1][..],
                b"trak",
                &(16 + body.len() as u64).to_be_bytes(),
                &body,
            ]
            .concat(),
            _ => [&[0, 0, 0, 0][..], b"mdia", &body].concat(),
        }
    }

    /// Hostile bytes (well-formed nests with bytes overwritten and ends cut off): every walk
    /// ends, at every depth, within its container, without a panic.
    #[test]
    fn hostile_input_is_walked_within_bounds() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut total = 0;
        for _ in 0..2000 {
            let mut data = nest(&mut rng, 6);
            for _ in 0..rng.below(4) {
                let at = rng.below(data.len() as u64) as usize;
                data[at] = [0, 1, 0xff, rng.below(256) as u8][rng.below(4) as usize];
            }
            data.truncate(rng.below(data.len() as u64 + 1) as usize);
            let mut stack = vec![&data[..]];
            let mut visited = 0;
            while let Some(container) = stack.pop() {
                for found in boxes(container).map_while(Result::ok) {
                    assert!(found.body.len() + 8 <= container.len());
                    stack.push(found.body);
                    visited += 1;
                }
            }
            assert!(
                visited <= data.len() / 8,
                "{visited} boxes in {}",
                data.len()
            );
            total += visited;
        }
        assert!(total > 1000, "the bytes make boxes: {total}");
    }
}
