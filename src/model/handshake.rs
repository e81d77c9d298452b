//! Cycle models of the handshake registers, mirroring `rtl/handshake.rs` and the
//! templates `hs_bubble.v`, `hs_skid.v`, `hs_fifo.v` register for register.

use std::collections::VecDeque;

use crate::config::StageKind;
use crate::vectors::Bits;

/// The state of one stage between clock edges.
#[derive(Debug, Clone)]
pub enum Stage {
    Bypass,
    Bubble {
        item: Option<Bits>,
    },
    Skid {
        out: Option<Bits>,
        skid: Option<Bits>,
    },
    Fifo {
        depth: usize,
        items: VecDeque<Bits>,
    },
}

impl Stage {
    /// A stage just out of reset.
    pub fn new(kind: StageKind) -> Self {
        match kind {
            StageKind::Bypass => Self::Bypass,
            StageKind::Bubble => Self::Bubble { item: None },
            StageKind::Skid => Self::Skid {
                out: None,
                skid: None,
            },
            StageKind::Fifo { depth } => Self::Fifo {
                depth: depth as usize,
                items: VecDeque::new(),
            },
        }
    }

    /// The item offered at the output this clock; a bypass offers its input.
    pub fn offer<'a>(&'a self, input: Option<&'a Bits>) -> Option<&'a Bits> {
        match self {
            Self::Bypass => input,
            Self::Bubble { item } => item.as_ref(),
            Self::Skid { out, .. } => out.as_ref(),
            Self::Fifo { items, .. } => items.front(),
        }
    }

    /// in_ready_o for a given out_ready_i.
    pub fn ready(&self, out_ready: bool) -> bool {
        match self {
            Self::Bypass => out_ready,
            Self::Bubble { item } => out_ready || item.is_none(),
            Self::Skid { skid, .. } => skid.is_none(),
            Self::Fifo { depth, items } => items.len() < *depth,
        }
    }

    /// The clock edge: `accepted` is the item taken at the input (valid & ready),
    /// `taken` whether the output transferred.
    pub fn clock(&mut self, accepted: Option<Bits>, taken: bool) {
        match self {
            Self::Bypass => {}
            Self::Bubble { item } => {
                if taken || item.is_none() {
                    *item = accepted;
                }
            }
            Self::Skid { out, skid } => {
                if taken || out.is_none() {
                    // Output register refills, skid first; an accepted item cannot
                    // coexist with a full skid (in_ready_o was low).
                    *out = skid.take().or(accepted);
                } else if accepted.is_some() {
                    *skid = accepted;
                }
            }
            Self::Fifo { items, .. } => {
                if taken {
                    items.pop_front();
                }
                if let Some(a) = accepted {
                    items.push_back(a);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(v: u64) -> Bits {
        Bits::from_u64(8, v)
    }

    #[test]
    fn skid_catches_the_item_accepted_while_the_output_stalls() {
        let mut s = Stage::new(StageKind::Skid);
        s.clock(Some(b(1)), false);
        assert_eq!(s.offer(None), Some(&b(1)));
        assert!(s.ready(false));
        s.clock(Some(b(2)), false); // output held: 2 lands in the skid
        assert!(
            !s.ready(true),
            "in_ready_o is registered: low while the skid is full"
        );
        s.clock(None, true); // 1 leaves, 2 moves up
        assert_eq!(s.offer(None), Some(&b(2)));
        assert!(s.ready(false));
    }

    #[test]
    fn bubble_is_ready_when_empty_or_draining() {
        let mut s = Stage::new(StageKind::Bubble);
        assert!(s.ready(false));
        s.clock(Some(b(7)), false);
        assert!(!s.ready(false));
        assert!(s.ready(true));
    }

    #[test]
    fn one_deep_fifo_is_not_ready_while_full() {
        let mut s = Stage::new(StageKind::Fifo { depth: 1 });
        s.clock(Some(b(3)), false);
        assert!(!s.ready(true));
    }
}
