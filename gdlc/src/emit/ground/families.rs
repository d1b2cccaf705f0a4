//! Word-parallel families of the ground backend: atoms of one relation placed at their
//! *anchors* plus one offset, so that every instance is one shape of word operations
//! relative to the atom's own bit (`families`); shapes only some atoms have are
//! masked, and atoms reading atoms of their own family (a line traced square by
//! square) are computed by repeating the family's words as many rounds as its longest
//! chain. Also the demand guards that put an atom no reader needs under an `if` on a
//! fluent.

use super::*;

/// How an atom's anchor, the bit its family places it relative to, is chosen; the
/// families of a relation use the rule that saves the most (see [`families`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchoring {
    /// The first bit of the state its instances read, else of `d`: `(occupied ?x ?y)`
    /// at its square.
    FirstRead,
    /// The first bit of a literal every instance holds, of the state if there is one,
    /// else of `d`: a player's "can move to (x, y)" at its square's `empty`, whatever
    /// neighbours an edge square lacks.
    Common,
    /// The first bit read of the *region* the most atoms read (a board of the state, a
    /// family of `d`): `(occupied ?x ?y)` at its square of a full board, whichever
    /// board comes first in the layout — a board with holes (pawns never stand on the
    /// first rank) would put the squares it lacks elsewhere.
    Region,
}

/// A literal of a family's atom: a bit of `s` or of a family already placed in `d`
/// (array, positive, bit, the literal's relation, its region: the first bit of its
/// board in `s`, its family in `d`), or an atom of the same relation placed with it
/// (positive, atom).
#[derive(Clone, Copy, Debug)]
enum Read {
    Bit(&'static str, bool, usize, RelationId, usize),
    Own(bool, AtomId),
}

/// A candidate atom's instances as [`Read`]s (`None`: another literal, an empty
/// instance or none at all).
fn reads(
    g: &Grounding,
    instances: &[&Instance],
    places: &[Place],
    regions: &[usize],
    placed: &[Option<usize>],
    own: impl Fn(AtomId) -> bool,
) -> Option<Vec<Vec<Read>>> {
    let bodies: Vec<Vec<Read>> = instances
        .iter()
        .map(|instance| {
            instance
                .body
                .iter()
                .map(|&l| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = l;
                    let positive = matches!(l, Literal::Pos(_));
                    let relation = g.atoms[b as usize].relation;
                    match places[b as usize] {
                        Place::State(bit) => {
                            Some(Read::Bit("s", positive, bit, relation, regions[bit]))
                        }
                        Place::D(bit) => placed[b as usize]
                            .map(|family| Read::Bit("d", positive, bit, relation, family)),
                        Place::Never if own(b) => Some(Read::Own(positive, b)),
                        _ => None,
                    }
                })
                .collect::<Option<Vec<_>>>()
                .filter(|body| !body.is_empty())
        })
        .collect::<Option<_>>()?;
    (!bodies.is_empty()).then_some(bodies)
}

/// A literal's kind: (array, positive, relation, region — 0 but under
/// [`Anchoring::Region`]).
type Kind = (&'static str, bool, RelationId, usize);

/// The bits an atom's anchor is chosen from under `rule`, with their kinds: every bit
/// its instances read, or those of the literals every instance holds.
fn anchor_bits(bodies: &[Vec<Read>], rule: Anchoring) -> Vec<(Kind, usize)> {
    let bits = |body: &[Read]| -> Vec<(Kind, usize)> {
        body.iter()
            .filter_map(|r| match *r {
                Read::Bit(array, positive, bit, relation, region) => {
                    let region = if rule == Anchoring::Region { region } else { 0 };
                    Some(((array, positive, relation, region), bit))
                }
                Read::Own(..) => None,
            })
            .collect()
    };
    match rule {
        Anchoring::FirstRead | Anchoring::Region => bodies.iter().flat_map(|b| bits(b)).collect(),
        Anchoring::Common => {
            let first = bits(&bodies[0]);
            first
                .into_iter()
                .filter(|l| bodies[1..].iter().all(|b| bits(b).contains(l)))
                .collect()
        }
    }
}

/// Every atom's anchor under `rule`: (array, bit). [`Anchoring::FirstRead`]: the first
/// bit of the state read, else of `d`. [`Anchoring::Common`]: the first bit of the
/// kind of common literal most atoms have (an atom of one instance holds all its
/// literals in common, the square's `empty` among them).
fn anchors(
    atoms: &[AtomId],
    bodies: &BTreeMap<AtomId, Vec<Vec<Read>>>,
    rule: Anchoring,
    n: usize,
) -> Vec<Option<(&'static str, usize)>> {
    let bits: Vec<(AtomId, Vec<(Kind, usize)>)> = atoms
        .iter()
        .map(|&a| (a, anchor_bits(&bodies[&a], rule)))
        .collect();
    let mut anchors = vec![None; n];
    match rule {
        Anchoring::FirstRead => {
            for (a, bits) in bits {
                let array = if bits.iter().any(|(k, _)| k.0 == "s") {
                    "s"
                } else {
                    "d"
                };
                let first = bits.iter().filter(|(k, _)| k.0 == array).map(|l| l.1).min();
                anchors[a as usize] = first.map(|bit| (array, bit));
            }
        }
        Anchoring::Common | Anchoring::Region => {
            let mut counts: BTreeMap<Kind, usize> = BTreeMap::new();
            for (_, bits) in &bits {
                let kinds: BTreeSet<Kind> = bits.iter().map(|&(k, _)| k).collect();
                for k in kinds {
                    *counts.entry(k).or_default() += 1;
                }
            }
            let Some(kind) = counts
                .iter()
                .max_by_key(|&(k, &count)| (count, std::cmp::Reverse(*k)))
                .map(|(&k, _)| k)
            else {
                return anchors;
            };
            for (a, bits) in bits {
                let first = bits.iter().filter(|(k, _)| *k == kind).map(|l| l.1).min();
                anchors[a as usize] = first.map(|bit| (kind.0, bit));
            }
        }
    }
    anchors
}

/// An atom's signature: its instances' shapes relative to its anchor, a literal of its
/// own family as `"self"` at the distance between the two anchors (`None`: that atom
/// has no anchor in the same array).
fn signature(
    bodies: &[Vec<Read>],
    at: (&'static str, usize),
    anchors: &[Option<(&'static str, usize)>],
) -> Option<Vec<Shape>> {
    let mut signature = bodies
        .iter()
        .map(|body| {
            let mut shape = body
                .iter()
                .map(|r| match *r {
                    Read::Bit(array, positive, bit, _, _) => {
                        Some((array, positive, bit as isize - at.1 as isize))
                    }
                    Read::Own(positive, b) => {
                        let (array, bit) = anchors[b as usize]?;
                        (array == at.0).then_some(("self", positive, bit as isize - at.1 as isize))
                    }
                })
                .collect::<Option<Shape>>()?;
            shape.sort_unstable();
            Some(shape)
        })
        .collect::<Option<Vec<Shape>>>()?;
    signature.sort();
    signature.dedup();
    Some(signature)
}

/// A family before placement: its atoms with their anchors, signatures and the atoms
/// of their own family they read.
#[derive(Default)]
struct Cluster {
    atoms: Vec<(AtomId, usize)>,
    signatures: Vec<Vec<Shape>>,
    reads: Vec<Vec<AtomId>>,
    /// Per atom, the unit it joined with (see [`units`]).
    unit: Vec<usize>,
}

impl Cluster {
    /// Its units as families of their own.
    fn split(self) -> Vec<Cluster> {
        let mut units: BTreeMap<usize, Cluster> = BTreeMap::new();
        for (k, &u) in self.unit.iter().enumerate() {
            let part = units.entry(u).or_default();
            part.atoms.push(self.atoms[k]);
            part.signatures.push(self.signatures[k].clone());
            part.reads.push(self.reads[k].clone());
            part.unit.push(u);
        }
        units.into_values().collect()
    }

    /// Whether it pays as a family (see [`Family`]), and what it saves against
    /// computing its atoms one by one: its words, each computing every shape once per
    /// round, cost fewer literals than its atoms' instances, and each shape is held by
    /// [`MIN_SHARING`] atoms on average (atoms that each read their own scattered
    /// squares are better computed alone, stopping at the first instance that holds);
    /// one shape for all atoms read from earlier words always pays.
    fn pays(&self, cx: &Context) -> Option<isize> {
        if self.atoms.len() < MIN_FAMILY {
            return None;
        }
        let (shapes, _) = self.shapes();
        let uniform = self.signatures.iter().all(|s| *s == self.signatures[0])
            && self.reads.iter().all(Vec::is_empty);
        let per_word: usize = shapes.iter().map(|s| s.len() + 1).sum();
        let cost = (self.words() * per_word * self.rounds(&cx.position)) as isize;
        let gain = self.literals(cx.by_head) as isize - cost;
        let held: usize = self.signatures.iter().map(Vec::len).sum();
        let shared = held >= MIN_SHARING * shapes.len();
        (uniform || (gain > 0 && shared)).then_some(gain)
    }

    /// The shapes of all its atoms, in order, and per atom the shapes it has.
    fn shapes(&self) -> (Vec<Shape>, Vec<Vec<usize>>) {
        let mut shapes: Vec<Shape> = self.signatures.iter().flatten().cloned().collect();
        shapes.sort();
        shapes.dedup();
        let holds = self
            .signatures
            .iter()
            .map(|signature| {
                signature
                    .iter()
                    .map(|s| shapes.binary_search(s).expect("a shape of the cluster"))
                    .collect()
            })
            .collect();
        (shapes, holds)
    }

    /// The literals of its atoms' instances: what they cost computed one by one.
    fn literals(&self, by_head: &[Vec<&Instance>]) -> usize {
        self.atoms
            .iter()
            .flat_map(|&(a, _)| &by_head[a as usize])
            .map(|i| i.body.len())
            .sum()
    }

    /// The rounds its words are computed in: one more than its longest chain of atoms
    /// reading atoms of the family (`position`: the atoms' evaluation order).
    fn rounds(&self, position: &[usize]) -> usize {
        self.depths(position).into_iter().max().unwrap_or(1)
    }

    /// Per atom, its depth: 1, or one more than the deepest atom of the family it
    /// reads.
    fn depths(&self, position: &[usize]) -> Vec<usize> {
        let mut by_position: Vec<usize> = (0..self.atoms.len()).collect();
        by_position.sort_by_key(|&k| position[self.atoms[k].0 as usize]);
        let index: BTreeMap<AtomId, usize> = self
            .atoms
            .iter()
            .enumerate()
            .map(|(k, &(a, _))| (a, k))
            .collect();
        let mut depth = vec![1usize; self.atoms.len()];
        for k in by_position {
            for b in &self.reads[k] {
                depth[k] = depth[k].max(depth[index[b]] + 1);
            }
        }
        depth
    }

    /// The words its anchors span once placed (see [`families`]).
    fn words(&self) -> usize {
        let min = self.atoms.iter().map(|&(_, a)| a).min().unwrap_or(0);
        let max = self.atoms.iter().map(|&(_, a)| a).max().unwrap_or(0);
        (min % 64 + max - min) / 64 + 1
    }
}

/// A candidate atom with its anchor, signature and the atoms of its own relation it
/// reads.
struct Signed {
    array: &'static str,
    anchor: usize,
    signature: Vec<Shape>,
    own: Vec<AtomId>,
}

/// The candidate atoms that have an anchor and a signature under `anchors`.
fn signed(
    atoms: &[AtomId],
    bodies: &BTreeMap<AtomId, Vec<Vec<Read>>>,
    anchors: &[Option<(&'static str, usize)>],
) -> BTreeMap<AtomId, Signed> {
    let mut signed = BTreeMap::new();
    for &a in atoms {
        let Some((array, anchor)) = anchors[a as usize] else {
            continue;
        };
        let Some(signature) = signature(&bodies[&a], (array, anchor), anchors) else {
            continue;
        };
        let own: BTreeSet<AtomId> = bodies[&a]
            .iter()
            .flatten()
            .filter_map(|r| match *r {
                Read::Own(_, b) => Some(b),
                Read::Bit(..) => None,
            })
            .collect();
        let own = own.into_iter().collect();
        signed.insert(
            a,
            Signed {
                array,
                anchor,
                signature,
                own,
            },
        );
    }
    signed
}

/// The units families are made of: atoms reading each other (a line traced square by
/// square) are one, and so are the atoms of one signature that read none and none
/// reads; each of one array at distinct anchors, largest first.
fn units(signed: &BTreeMap<AtomId, Signed>) -> Vec<Vec<AtomId>> {
    let atoms: Vec<AtomId> = signed.keys().copied().collect();
    let index = |a: &AtomId| atoms.binary_search(a).ok();
    let mut unit = petgraph::unionfind::UnionFind::<usize>::new(atoms.len());
    let mut read = vec![false; atoms.len()];
    for (k, s) in signed.values().enumerate() {
        for b in s.own.iter().filter_map(index) {
            read[b] = true;
            unit.union(k, b);
        }
    }
    let mut by_signature: BTreeMap<(&str, &Vec<Shape>), usize> = BTreeMap::new();
    for (k, s) in signed.values().enumerate() {
        if s.own.is_empty() && !read[k] {
            let first = *by_signature.entry((s.array, &s.signature)).or_insert(k);
            unit.union(first, k);
        }
    }
    let mut units: BTreeMap<usize, Vec<AtomId>> = BTreeMap::new();
    for (k, &a) in atoms.iter().enumerate() {
        units.entry(unit.find(k)).or_default().push(a);
    }
    // A unit whose anchors meet is split by signature (its atoms that read others of
    // the relation wait for a later round, where those are placed).
    let distinct = |members: &[AtomId]| {
        let arrays: BTreeSet<&str> = members.iter().map(|a| signed[a].array).collect();
        let at: BTreeSet<usize> = members.iter().map(|a| signed[a].anchor).collect();
        arrays.len() == 1 && at.len() == members.len()
    };
    let mut units: Vec<Vec<AtomId>> = units
        .into_values()
        .flat_map(|members| {
            if distinct(&members) {
                return vec![members];
            }
            let mut groups: BTreeMap<(&str, &Vec<Shape>), Vec<AtomId>> = BTreeMap::new();
            for a in members {
                let s = &signed[&a];
                groups.entry((s.array, &s.signature)).or_default().push(a);
            }
            groups.into_values().filter(|g| distinct(g)).collect()
        })
        .collect();
    units.sort_by_key(|members| (std::cmp::Reverse(members.len()), members[0]));
    units
}

/// Units joined into families: each joins the first family of its array whose
/// anchors it does not meet that has all its shapes, else the first that has one of
/// them, else starts one.
fn join(units: Vec<Vec<AtomId>>, signed: &BTreeMap<AtomId, Signed>, cx: &Context) -> Vec<Cluster> {
    struct Joining {
        array: &'static str,
        guard: Option<AtomId>,
        cluster: Cluster,
        taken: BTreeSet<usize>,
    }
    let mut found: Vec<Joining> = Vec::new();
    // Per shape, the families holding it, in the order they were started: a unit
    // joins only a family that has one of its shapes.
    let mut holding: BTreeMap<&Shape, Vec<usize>> = BTreeMap::new();
    for (u, members) in units.into_iter().enumerate() {
        let array = signed[&members[0]].array;
        // The demand guard all its atoms have (a family keeps its atoms' guard only
        // when they share it).
        let guard = members
            .iter()
            .map(|&a| cx.demand[a as usize])
            .reduce(|x, y| if x == y { x } else { None })
            .flatten();
        let shapes: BTreeSet<&Shape> = members.iter().flat_map(|a| &signed[a].signature).collect();
        // The families holding one of its shapes, each with how many it holds.
        let mut candidates: BTreeMap<usize, usize> = BTreeMap::new();
        for shape in &shapes {
            for &k in holding.get(shape).into_iter().flatten() {
                *candidates.entry(k).or_default() += 1;
            }
        }
        let fits = |k: usize| {
            let f = &found[k];
            f.array == array
                && f.guard == guard
                && members.iter().all(|a| !f.taken.contains(&signed[a].anchor))
        };
        let joined = candidates
            .iter()
            .find(|&(&k, &held)| held == shapes.len() && fits(k))
            .or_else(|| candidates.iter().find(|&(&k, _)| fits(k)))
            .map(|(&k, _)| k);
        let k = joined.unwrap_or_else(|| {
            found.push(Joining {
                array,
                guard,
                cluster: Cluster::default(),
                taken: BTreeSet::new(),
            });
            found.len() - 1
        });
        for shape in shapes {
            let families = holding.entry(shape).or_default();
            if !families.contains(&k) {
                families.push(k);
            }
        }
        let f = &mut found[k];
        for a in members {
            let s = &signed[&a];
            f.cluster.atoms.push((a, s.anchor));
            f.cluster.signatures.push(s.signature.clone());
            f.cluster.reads.push(s.own.clone());
            f.cluster.unit.push(u);
            f.taken.insert(s.anchor);
        }
    }
    found.into_iter().map(|f| f.cluster).collect()
}

/// Takes out of each family every atom that reads an atom outside it, until none does.
fn settle(clusters: &mut [Cluster]) {
    loop {
        let mut family_of: BTreeMap<AtomId, usize> = BTreeMap::new();
        for (k, cluster) in clusters.iter().enumerate() {
            for &(a, _) in &cluster.atoms {
                family_of.insert(a, k);
            }
        }
        let mut changed = false;
        for (k, cluster) in clusters.iter_mut().enumerate() {
            let keep: Vec<bool> = cluster
                .reads
                .iter()
                .map(|own| own.iter().all(|b| family_of.get(b) == Some(&k)))
                .collect();
            if keep.iter().all(|&x| x) {
                continue;
            }
            changed = true;
            let kept = |k: &mut std::slice::Iter<bool>| *k.next().expect("one per atom");
            let mut k = keep.iter();
            cluster.atoms.retain(|_| kept(&mut k));
            let mut k = keep.iter();
            cluster.signatures.retain(|_| kept(&mut k));
            let mut k = keep.iter();
            cluster.reads.retain(|_| kept(&mut k));
            let mut k = keep.iter();
            cluster.unit.retain(|_| kept(&mut k));
        }
        if !changed {
            return;
        }
    }
}

/// Whether the atoms of the families in rounds among `clusters` would cost less
/// placed one depth at a time: per depth, its atoms packed in words (as many as
/// atoms share an anchor, at least), each word computing the shapes of that depth
/// once, against every family's words computed in each of its rounds.
fn layers_are_cheaper(clusters: &[Cluster], position: &[usize]) -> bool {
    let mut in_rounds = 0;
    // Per depth, its atoms at each anchor (atoms at one anchor need words of their
    // own) and its shapes.
    let mut by_depth: BTreeMap<usize, (BTreeMap<usize, usize>, BTreeSet<&Shape>)> = BTreeMap::new();
    for cluster in clusters {
        let rounds = cluster.rounds(position);
        if rounds < 2 {
            continue;
        }
        let (shapes, _) = cluster.shapes();
        let per_word: usize = shapes.iter().map(|s| s.len() + 1).sum();
        // Words as packed, not as placed: the layers are estimated so too.
        in_rounds += cluster.atoms.len().div_ceil(64) * per_word * rounds;
        for (k, depth) in cluster.depths(position).into_iter().enumerate() {
            let (anchors, shapes) = by_depth.entry(depth).or_default();
            *anchors.entry(cluster.atoms[k].1).or_default() += 1;
            shapes.extend(&cluster.signatures[k]);
        }
    }
    let layered: usize = by_depth
        .values()
        .map(|(anchors, shapes)| {
            let atoms: usize = anchors.values().sum();
            let at_one_anchor = anchors.values().copied().max().unwrap_or(0);
            let words = atoms.div_ceil(64).max(at_one_anchor);
            words * shapes.iter().map(|s| s.len() + 1).sum::<usize>()
        })
        .sum();
    in_rounds > 0 && layered < in_rounds
}

/// What finding families reads besides the candidates: instances by head, each
/// atom's position in evaluation order and its demand guard (see [`demand_guards`]).
pub(super) struct Context<'a> {
    by_head: &'a [Vec<&'a Instance>],
    /// The evaluation order: components of atoms, and whether each is cyclic.
    order: &'a [(Vec<AtomId>, bool)],
    position: Vec<usize>,
    demand: &'a [Option<AtomId>],
    atoms: usize,
}

impl<'a> Context<'a> {
    pub(super) fn new(
        by_head: &'a [Vec<&'a Instance>],
        order: &'a [(Vec<AtomId>, bool)],
        demand: &'a [Option<AtomId>],
    ) -> Self {
        let mut position = vec![0usize; by_head.len()];
        for (p, &a) in order.iter().flat_map(|(atoms, _)| atoms).enumerate() {
            position[a as usize] = p;
        }
        Context {
            by_head,
            order,
            position,
            demand,
            atoms: by_head.len(),
        }
    }
}

/// The families one relation's candidate atoms form under one anchoring rule, with
/// the literals they save against computing their atoms one by one (a family of one
/// shape that saves none counts as none).
fn clusters(
    atoms: &[AtomId],
    bodies: &BTreeMap<AtomId, Vec<Vec<Read>>>,
    rule: Anchoring,
    cx: &Context,
) -> (Vec<Cluster>, isize) {
    let anchors = anchors(atoms, bodies, rule, cx.atoms);
    let mut signed = signed(atoms, bodies, &anchors);
    let mut clusters = join(units(&signed), &signed, cx);
    settle(&mut clusters);
    // Families in rounds recompute every atom each round; where the atoms of each
    // depth would fill words of their own (a move's squares at each distance, for
    // every source square), those are cheaper: the atoms reading others of the
    // relation wait for later rounds, which place one depth each.
    if layers_are_cheaper(&clusters, &cx.position) {
        signed.retain(|_, s| s.own.is_empty());
        clusters = join(units(&signed), &signed, cx);
        settle(&mut clusters);
    }
    // A family that does not pay may have units that do.
    let mut saved = 0isize;
    let mut accepted = Vec::new();
    for cluster in clusters {
        if let Some(gain) = cluster.pays(cx) {
            saved += gain.max(0);
            accepted.push(cluster);
            continue;
        }
        let mut units = cluster.split();
        settle(&mut units);
        for unit in units {
            if let Some(gain) = unit.pays(cx) {
                saved += gain.max(0);
                accepted.push(unit);
            }
        }
    }
    (accepted, saved)
}

/// Finds the families among the atoms not placed yet of the state's and the goals'
/// cones (see [`Family`]), those reading earlier families after them, and places
/// them in `d` from bit `d_bits` on. The atoms of `legal` are left to
/// `Placing::legal_moves`, which places them in move order.
pub(super) fn families(
    g: &Grounding,
    cx: &Context,
    places: &mut [Place],
    regions: &[usize],
    d_bits: &mut usize,
    cones: &[&[bool]; 2],
    legal: Option<RelationId>,
) -> Vec<Family> {
    let (by_head, n) = (cx.by_head, cx.atoms);
    let mut families = Vec::new();
    // Per atom placed, its family.
    let mut placed: Vec<Option<usize>> = vec![None; n];
    loop {
        // The candidates by relation and cone: acyclic atoms of one cone not placed.
        let mut kind: Vec<Option<(RelationId, bool)>> = vec![None; n];
        let mut by_kind: BTreeMap<(RelationId, bool), Vec<AtomId>> = BTreeMap::new();
        for (atoms, cyclic) in cx.order {
            if *cyclic {
                continue;
            }
            for &a in atoms {
                let i = a as usize;
                let Some(goals) = (0..2).find(|&c| cones[c][i]).map(|c| c == 1) else {
                    continue;
                };
                if places[i] != Place::Never || Some(g.atoms[i].relation) == legal {
                    continue;
                }
                kind[i] = Some((g.atoms[i].relation, goals));
                by_kind
                    .entry((g.atoms[i].relation, goals))
                    .or_default()
                    .push(a);
            }
        }
        let mut found: Vec<(RelationId, Cluster)> = Vec::new();
        for (key, atoms) in by_kind {
            let mut bodies: BTreeMap<AtomId, Vec<Vec<Read>>> = BTreeMap::new();
            for &a in &atoms {
                let own = |b: AtomId| kind[b as usize] == Some(key);
                let instances = &by_head[a as usize];
                if let Some(read) = reads(g, instances, places, regions, &placed, own) {
                    bodies.insert(a, read);
                }
            }
            let atoms: Vec<AtomId> = bodies.keys().copied().collect();
            // The rule that saves the most, the first of those that save as much.
            let mut chosen: Option<(Vec<Cluster>, isize)> = None;
            for rule in [Anchoring::FirstRead, Anchoring::Common, Anchoring::Region] {
                let (clusters, saved) = clusters(&atoms, &bodies, rule, cx);
                if chosen.as_ref().is_none_or(|&(_, best)| saved > best) {
                    chosen = Some((clusters, saved));
                }
            }
            let chosen = chosen.map(|(clusters, _)| clusters).unwrap_or_default();
            found.extend(chosen.into_iter().map(|c| (key.0, c)));
        }
        if found.is_empty() {
            return families;
        }
        for (relation, cluster) in found {
            // The first atom at the first free bit with its anchor's bit in the word.
            let min_anchor = cluster.atoms.iter().map(|&(_, anchor)| anchor).min();
            let min_anchor = min_anchor.expect("atoms");
            let start = d_bits.next_multiple_of(64) + min_anchor % 64;
            let offset = start as isize - min_anchor as isize;
            for &(a, anchor) in &cluster.atoms {
                let bit = (anchor as isize + offset) as usize;
                places[a as usize] = Place::D(bit);
                placed[a as usize] = Some(families.len());
                *d_bits = (*d_bits).max(bit + 1);
            }
            let rounds = cluster.rounds(&cx.position);
            let (mut shapes, holds) = cluster.shapes();
            // A literal of the family is a bit of `d` now.
            for shape in &mut shapes {
                for literal in shape.iter_mut() {
                    if literal.0 == "self" {
                        *literal = ("d", literal.1, literal.2 + offset);
                    }
                }
            }
            families.push(Family {
                relation,
                atoms: cluster.atoms,
                shapes,
                holds,
                rounds,
            });
        }
    }
}

/// Per atom, a fluent without which the atom's value is never used, if there is one:
/// the *demand guard* it is computed under.
///
/// An atom's value matters only when one of its readers (the rule instances whose body
/// holds it) can hold; a reader holds only when every fluent it *implies* holds: its
/// positive fluent literals, the fluents every instance of its positive derived atoms
/// implies, for `does(r, m)` the fluents `legal(r, m)` implies (a played move is
/// legal), and its head's own demand guard. The fluents every reader implies are the
/// atom's candidates; of those, the one that is a candidate of the most atoms is its
/// guard, so that atoms share `if` blocks. A player's `has a legal move at (x, y)`,
/// read only by its legal moves (under `(control ?player)`), is computed only for the
/// player in control.
///
/// Entry points (`legal`, `terminal`, `goal`, `sees`, `next`) and recursive atoms get
/// no guard: the runtime reads the former, and the latter are computed by iteration.
pub(super) fn demand_guards(
    ir: &Ir,
    g: &Grounding,
    places: &[Place],
    order: &[(Vec<AtomId>, bool)],
) -> Vec<Option<AtomId>> {
    let n = g.atoms.len();
    let relation_of = |k: Keyword| ir.keyword(k);
    let entries: Vec<RelationId> = [
        Keyword::Legal,
        Keyword::Terminal,
        Keyword::Goal,
        Keyword::Sees,
        Keyword::Next,
    ]
    .into_iter()
    .filter_map(relation_of)
    .collect();
    let is_fluent = |a: AtomId| matches!(places[a as usize], Place::State(_));
    let mut by_head: Vec<Vec<&Instance>> = vec![Vec::new(); n];
    let mut readers: Vec<Vec<&Instance>> = vec![Vec::new(); n];
    for instance in &g.instances {
        by_head[instance.head as usize].push(instance);
        for &literal in &instance.body {
            readers[literal.atom() as usize].push(instance);
        }
    }
    let intersect = |a: &[AtomId], b: &[AtomId]| -> Vec<AtomId> {
        a.iter()
            .copied()
            .filter(|x| b.binary_search(x).is_ok())
            .collect()
    };
    let mut cyclic = vec![false; n];
    for (atoms, is_cyclic) in order {
        for &a in atoms {
            cyclic[a as usize] = *is_cyclic;
        }
    }
    // The fluents a body implies, with `also`, sorted: its positive fluent literals
    // and what its positive derived literals imply.
    let body_implies =
        |body: &[Literal], mut also: Vec<AtomId>, implied: &[Option<Vec<AtomId>>]| -> Vec<AtomId> {
            for &literal in body {
                if let Literal::Pos(b) = literal {
                    if is_fluent(b) {
                        also.push(b);
                    } else if let Some(more) = &implied[b as usize] {
                        also.extend(more);
                    }
                }
            }
            also.sort_unstable();
            also.dedup();
            also
        };
    // The fluents each derived atom implies (`None`: not computed, or recursive).
    let mut implied: Vec<Option<Vec<AtomId>>> = vec![None; n];
    for (atoms, is_cyclic) in order {
        if *is_cyclic {
            continue;
        }
        for &a in atoms {
            let mut common: Option<Vec<AtomId>> = None;
            for instance in &by_head[a as usize] {
                let holds = body_implies(&instance.body, Vec::new(), &implied);
                common = Some(match common {
                    None => holds,
                    Some(c) => intersect(&c, &holds),
                });
            }
            implied[a as usize] = Some(common.unwrap_or_default());
        }
    }
    // `does(r, m)` implies what `legal(r, m)` implies.
    for a in 0..n {
        if let Some(does) = g.input_of[a]
            && Some(g.atoms[a].relation) == relation_of(Keyword::Legal)
        {
            implied[does as usize] = implied[a].clone();
        }
    }
    // Candidates, readers first.
    let mut candidates: Vec<Vec<AtomId>> = vec![Vec::new(); n];
    for (atoms, is_cyclic) in order.iter().rev() {
        if *is_cyclic {
            continue;
        }
        for &a in atoms {
            let i = a as usize;
            if entries.contains(&g.atoms[i].relation) || readers[i].is_empty() {
                continue;
            }
            let mut common: Option<Vec<AtomId>> = None;
            for reader in &readers[i] {
                let head_guard = candidates[reader.head as usize].clone();
                let holds = body_implies(&reader.body, head_guard, &implied);
                common = Some(match common {
                    None => holds,
                    Some(c) => intersect(&c, &holds),
                });
                if common.as_ref().is_some_and(Vec::is_empty) {
                    break;
                }
            }
            candidates[i] = common.unwrap_or_default();
        }
    }
    let mut counts: BTreeMap<AtomId, usize> = BTreeMap::new();
    for list in &candidates {
        for &c in list {
            *counts.entry(c).or_default() += 1;
        }
    }
    candidates
        .iter()
        .enumerate()
        .map(|(a, list)| {
            if cyclic[a] {
                return None;
            }
            list.iter()
                .copied()
                .max_by_key(|c| (counts[c], std::cmp::Reverse(*c)))
        })
        .collect()
}

/// Copies of instances with some literals left out of their bodies (those a guard or
/// a common factor tests once for all of them).
pub(super) fn without<'i>(
    instances: impl Iterator<Item = &'i Instance>,
    left_out: &[Literal],
) -> Vec<Instance> {
    instances
        .map(|i| Instance {
            rule: i.rule,
            head: i.head,
            body: i
                .body
                .iter()
                .copied()
                .filter(|l| !left_out.contains(l))
                .collect(),
        })
        .collect()
}
