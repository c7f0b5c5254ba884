//! A minimal protobuf wire-format writer: the few field kinds the ONNX messages need.

/// One message being written; nested messages are written separately and embedded as bytes.
#[derive(Default)]
pub(crate) struct Message {
    buf: Vec<u8>,
}

const VARINT: u32 = 0;
const LEN: u32 = 2;

impl Message {
    pub fn new() -> Message {
        Message::default()
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u32) {
        self.varint(u64::from((field << 3) | wire));
    }

    /// An `int32`/`int64`/enum field (negative values as ten-byte varints, as protobuf does).
    pub fn int(&mut self, field: u32, v: i64) -> &mut Message {
        self.key(field, VARINT);
        self.varint(v as u64);
        self
    }

    /// A repeated integer field, unpacked (what proto2 files such as onnx.proto expect).
    pub fn ints(&mut self, field: u32, vs: &[i64]) -> &mut Message {
        for &v in vs {
            self.int(field, v);
        }
        self
    }

    pub fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Message {
        self.key(field, LEN);
        self.varint(b.len() as u64);
        self.buf.extend_from_slice(b);
        self
    }

    pub fn string(&mut self, field: u32, s: &str) -> &mut Message {
        self.bytes(field, s.as_bytes())
    }

    pub fn message(&mut self, field: u32, m: &Message) -> &mut Message {
        self.bytes(field, &m.buf)
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_the_protobuf_docs() {
        // The protobuf encoding guide's examples: field 1 = 150 is 08 96 01; field 2 = "testing".
        let mut m = Message::new();
        m.int(1, 150).string(2, "testing");
        assert_eq!(
            m.into_bytes(),
            [0x08, 0x96, 0x01, 0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']
        );
        let mut m = Message::new();
        m.int(3, -1);
        assert_eq!(m.into_bytes().len(), 1 + 10);
    }
}
