//! Vector files: the model's stimulus and expected output, one file per stream port.
//!
//! Format (text, one transaction per line):
//! ```text
//! # gpurtl vectors 1
//! # unit hs_chain
//! # port in input 32
//! # role stimulus          (or: expected)
//! # seed 1
//! # count 3
//! 0000002a
//! 8000ffff
//! 00000000
//! ```
//! Lines starting with `#` are comments; the header lines above are written first.
//! Each data line is the port's word in hex, most significant digit first, exactly
//! ceil(width / 4) digits. The file for port `P` is `P.vec` in the vector directory.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::iface::{Dir, StreamPort};
use crate::rng::Rng;

/// A bit vector of a fixed width, as 32-bit limbs, least significant first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bits {
    width: u32,
    limbs: Vec<u32>,
}

impl Bits {
    pub fn zero(width: u32) -> Self {
        Self {
            width,
            limbs: vec![0; width.div_ceil(32) as usize],
        }
    }

    pub fn from_u64(width: u32, value: u64) -> Self {
        let mut b = Self::zero(width);
        for (i, limb) in b.limbs.iter_mut().enumerate().take(2) {
            *limb = (value >> (32 * i)) as u32;
        }
        b.mask();
        b
    }

    pub fn random(width: u32, rng: &mut Rng) -> Self {
        let mut b = Self::zero(width);
        for limb in &mut b.limbs {
            *limb = rng.next_u64() as u32;
        }
        b.mask();
        b
    }

    /// Sets bits `lsb .. lsb + bits` (at most 64) to `value`.
    pub fn set_field(&mut self, lsb: u32, bits: u32, value: u64) {
        for b in 0..bits.min(64) {
            let pos = lsb + b;
            if pos >= self.width {
                break;
            }
            let limb = &mut self.limbs[(pos / 32) as usize];
            let mask = 1u32 << (pos % 32);
            if (value >> b) & 1 == 1 {
                *limb |= mask;
            } else {
                *limb &= !mask;
            }
        }
    }

    /// Reads bits `lsb .. lsb + bits` (at most 64).
    pub fn field(&self, lsb: u32, bits: u32) -> u64 {
        (0..bits.min(64))
            .filter(|b| lsb + b < self.width)
            .filter(|b| (self.limbs[((lsb + b) / 32) as usize] >> ((lsb + b) % 32)) & 1 == 1)
            .fold(0, |acc, b| acc | (1 << b))
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    /// The low 64 bits.
    pub fn low_u64(&self) -> u64 {
        let lo = u64::from(self.limbs.first().copied().unwrap_or(0));
        let hi = u64::from(self.limbs.get(1).copied().unwrap_or(0));
        lo | (hi << 32)
    }

    fn mask(&mut self) {
        let rem = self.width % 32;
        if rem != 0
            && let Some(top) = self.limbs.last_mut()
        {
            *top &= (1u32 << rem) - 1;
        }
    }

    pub fn to_hex(&self) -> String {
        let digits = self.width.div_ceil(4) as usize;
        let mut s = String::with_capacity(digits);
        for d in (0..digits).rev() {
            let limb = self.limbs[d / 8];
            let nibble = (limb >> ((d % 8) * 4)) & 0xF;
            s.push(char::from_digit(nibble, 16).unwrap_or('0'));
        }
        s
    }

    pub fn from_hex(width: u32, text: &str) -> Result<Self, String> {
        let digits = width.div_ceil(4) as usize;
        if text.len() != digits {
            return Err(format!(
                "{text:?} has {} hex digits, expected {digits}",
                text.len()
            ));
        }
        let mut b = Self::zero(width);
        for (d, c) in text.chars().rev().enumerate() {
            let v = c
                .to_digit(16)
                .ok_or_else(|| format!("{c:?} is not a hex digit"))?;
            b.limbs[d / 8] |= v << ((d % 8) * 4);
        }
        let before = b.clone();
        b.mask();
        if b != before {
            return Err(format!("{text:?} does not fit in {width} bits"));
        }
        Ok(b)
    }
}

/// What a vector file holds for its port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Stimulus,
    Expected,
}

/// One port's transactions.
#[derive(Debug, Clone)]
pub struct PortVectors {
    pub port: StreamPort,
    pub items: Vec<Bits>,
}

impl PortVectors {
    pub fn role(&self) -> Role {
        match self.port.dir {
            Dir::In => Role::Stimulus,
            Dir::Out => Role::Expected,
        }
    }

    pub fn file_name(&self) -> String {
        format!("{}.vec", self.port.name)
    }

    pub fn render(&self, unit: &str, seed: u64) -> String {
        let (dir, role) = match self.role() {
            Role::Stimulus => ("input", "stimulus"),
            Role::Expected => ("output", "expected"),
        };
        let mut s = String::new();
        let _ = writeln!(s, "# gpurtl vectors 1");
        let _ = writeln!(s, "# unit {unit}");
        let _ = writeln!(s, "# port {} {dir} {}", self.port.name, self.port.width);
        let _ = writeln!(s, "# role {role}");
        let _ = writeln!(s, "# seed {seed}");
        let _ = writeln!(s, "# count {}", self.items.len());
        for item in &self.items {
            s.push_str(&item.to_hex());
            s.push('\n');
        }
        s
    }
}

/// All vectors of one run of one unit.
#[derive(Debug, Clone)]
pub struct VectorSet {
    pub unit: String,
    pub seed: u64,
    pub ports: Vec<PortVectors>,
}

impl VectorSet {
    pub fn write(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        fs::create_dir_all(dir)?;
        let mut names = Vec::new();
        for p in &self.ports {
            fs::write(dir.join(p.file_name()), p.render(&self.unit, self.seed))?;
            names.push(p.file_name());
        }
        Ok(names)
    }

    pub fn port(&self, name: &str) -> Option<&PortVectors> {
        self.ports.iter().find(|p| p.port.name == name)
    }
}

/// Reads the data lines of a vector file (the header is checked against `port`).
pub fn read_port(path: &Path, port: &StreamPort) -> Result<Vec<Bits>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(comment) = line.strip_prefix('#') {
            let words: Vec<&str> = comment.split_whitespace().collect();
            if words.first() == Some(&"port")
                && words.get(3) != Some(&port.width.to_string().as_str())
            {
                return Err(format!(
                    "{}:{}: width differs from port {}",
                    path.display(),
                    n + 1,
                    port.name
                ));
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        items.push(
            Bits::from_hex(port.width, line)
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?,
        );
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_at_odd_widths() {
        let mut rng = Rng::stream(1, 0);
        for width in [1, 3, 4, 31, 32, 33, 64, 65, 100, 4096] {
            for _ in 0..20 {
                let b = Bits::random(width, &mut rng);
                let hex = b.to_hex();
                assert_eq!(hex.len(), width.div_ceil(4) as usize);
                assert_eq!(Bits::from_hex(width, &hex), Ok(b));
            }
        }
    }

    #[test]
    fn rejects_values_wider_than_the_port() {
        assert!(Bits::from_hex(3, "8").is_err());
        assert!(Bits::from_hex(3, "7").is_ok());
        assert!(Bits::from_hex(8, "1ff").is_err());
        assert!(Bits::from_hex(8, "g0").is_err());
    }

    #[test]
    fn written_files_read_back() {
        let dir = std::env::temp_dir().join(format!("gpurtl-vec-{}", std::process::id()));
        let port = StreamPort {
            name: "in".into(),
            dir: Dir::In,
            width: 12,
        };
        let items: Vec<Bits> = (0..5).map(|i| Bits::from_u64(12, i * 1000)).collect();
        let set = VectorSet {
            unit: "hs_chain".into(),
            seed: 9,
            ports: vec![PortVectors {
                port: port.clone(),
                items: items.clone(),
            }],
        };
        set.write(&dir).unwrap();
        assert_eq!(read_port(&dir.join("in.vec"), &port).unwrap(), items);
        let _ = fs::remove_dir_all(&dir);
    }
}
