//! ONNX export, written by hand, opset 17, one input `input` (`[batch, PLANES, 8, 8]` for the
//! ResNet, `[batch, FEATURES]` for the sparse net) and one output `output` `[batch, OUTPUT_SIZE]`
//! (the layout of [`crate::net`]). The ResNet as Conv (batch norm folded in), Relu, Add, Flatten,
//! Gemm and Concat nodes; the sparse net as Gemm, Clip and Concat nodes, and with buckets of
//! material also MatMul, Mul, Div, Floor, Equal and Cast nodes (below).

use super::protobuf::Message;
use crate::encoding::Input;
use crate::layers::{ConvBn, BN_EPS};
use crate::net::{Body, PolicyValueNet, OUTPUT_SIZE};
use crate::resnet::ResNetBody;
use crate::sparse::SparseBody;
use sparsenet::features::{FEATURES, MAX_PIECES, PIECE_FEATURES};
use tch::nn::Linear;
use tch::Tensor;

const IR_VERSION: i64 = 8;
const OPSET: i64 = 17;
/// `TensorProto.DataType.FLOAT`.
const FLOAT: i64 = 1;
/// `AttributeProto.AttributeType` values.
const ATTR_INT: i64 = 2;
const ATTR_INTS: i64 = 7;
/// `TensorProto.DataType.FLOAT` as `Cast`'s `to`.
const CAST_TO_FLOAT: i64 = FLOAT;

pub(crate) const INPUT_NAME: &str = "input";
pub(crate) const OUTPUT_NAME: &str = "output";

/// The serialized ONNX `ModelProto` of `net` (eval mode: running batch-norm statistics).
pub(crate) fn model_bytes(net: &PolicyValueNet) -> Vec<u8> {
    let mut g = Graph::default();
    let [policy, wdl, moves_left] = match &net.body {
        Body::Resnet(body) => resnet_graph(&mut g, body),
        Body::Sparse(body) => sparse_graph(&mut g, body),
    };
    g.node("Concat", &[&policy, &wdl, &moves_left], OUTPUT_NAME, vec![attr_int("axis", 1)]);
    let mut input_dims = vec![None];
    input_dims.extend(Input::of(net.config()).dims().into_iter().map(Some));

    let mut graph = Message::new();
    for node in &g.nodes {
        graph.message(1, node);
    }
    graph.string(2, "checkers_zero");
    for init in &g.initializers {
        graph.message(5, init);
    }
    graph.message(11, &value_info(INPUT_NAME, &input_dims));
    graph.message(12, &value_info(OUTPUT_NAME, &[None, Some(OUTPUT_SIZE as i64)]));

    let mut opset = Message::new();
    opset.string(1, "").int(2, OPSET);
    let mut model = Message::new();
    model
        .int(1, IR_VERSION)
        .string(2, "checkers-zero")
        .string(3, env!("CARGO_PKG_VERSION"))
        .message(7, &graph)
        .message(8, &opset);
    model.into_bytes()
}

/// The ResNet's nodes; returns the heads' outputs (policy, wdl, moves left).
fn resnet_graph(g: &mut Graph, net: &ResNetBody) -> [String; 3] {
    let mut x = g.conv_bn_relu(INPUT_NAME, &net.stem, "stem");
    for (i, block) in net.tower.iter().enumerate() {
        let prefix = format!("tower.{i}");
        let y = g.conv_bn_relu(&x, &block.first, &format!("{prefix}.1"));
        let y = g.conv_bn(&y, &block.second, &format!("{prefix}.2"));
        let sum = g.node("Add", &[&x, &y], &format!("{prefix}.add"), vec![]);
        x = g.node("Relu", &[&sum], &format!("{prefix}.out"), vec![]);
    }
    let policy = g.head(&x, &net.policy.conv, &net.policy.fc, "policy");
    let hidden = g.head(&x, &net.value.conv, &net.value.fc, "value");
    let hidden = g.node("Relu", &[&hidden], "value.hidden", vec![]);
    let wdl = g.gemm(&hidden, &net.wdl, "value.wdl");
    let moves_left = g.gemm(&hidden, &net.moves_left, "value.moves_left");
    [policy, wdl, moves_left]
}

/// The sparse net's nodes (crelu as `Clip(0, 1)`); returns the heads' outputs.
fn sparse_graph(g: &mut Graph, net: &SparseBody) -> [String; 3] {
    let low = g.initializer("crelu.min", &[], &[0.0]);
    let high = g.initializer("crelu.max", &[], &[1.0]);
    let crelu = |g: &mut Graph, x: &str, name: &str| {
        g.node("Clip", &[x, &low, &high], &format!("{name}.crelu"), vec![])
    };
    let y = g.gemm(INPUT_NAME, &net.accumulator, "accumulator");
    let accumulator = crelu(g, &y, "accumulator");
    let policy = g.gemm(&accumulator, &net.policy, "policy");
    if net.buckets > 1 {
        let [wdl, moves_left] = bucketed_value_heads(g, net, &accumulator, [&low, &high]);
        return [policy, wdl, moves_left];
    }
    let mut hidden = accumulator.clone();
    for (i, layer) in net.hidden.iter().enumerate() {
        let y = g.gemm(&hidden, layer, &format!("hidden.{i}"));
        hidden = crelu(g, &y, &format!("hidden.{i}"));
    }
    let wdl = g.gemm(&hidden, &net.wdl, "wdl");
    let moves_left = g.gemm(&hidden, &net.moves_left, "moves_left");
    [policy, wdl, moves_left]
}

/// The value stacks of K buckets side by side: every stacked layer after the first as one
/// block-diagonal Gemm (bucket k's block reads bucket k's outputs), so `[B, K·out]` holds every
/// bucket's values; then each position's own bucket, one-hot from its piece count
/// (`floor(min(sum of features 0..128, 24) · K / 25)`), masks the rest and a 0/1 matrix sums
/// them: the WDL logits `[B, 3]` and moves left `[B, 1]`.
fn bucketed_value_heads(
    g: &mut Graph,
    net: &SparseBody,
    acc: &str,
    [zero, one]: [&str; 2],
) -> [String; 2] {
    let k = net.buckets as usize;
    // The first layer reads the shared accumulator, the others their own bucket's outputs.
    let mut hidden = acc.to_string();
    for (i, layer) in net.hidden.iter().enumerate() {
        let y = g.bucket_gemm(&hidden, layer, k, i > 0, &format!("hidden.{i}"));
        hidden = g.node("Clip", &[&y, zero, one], &format!("hidden.{i}.crelu"), vec![]);
    }
    let per_bucket = !net.hidden.is_empty();
    let wdl = g.bucket_gemm(&hidden, &net.wdl, k, per_bucket, "wdl");
    let moves_left = g.bucket_gemm(&hidden, &net.moves_left, k, per_bucket, "moves_left");

    let on_board: Vec<f32> =
        (0..FEATURES).map(|f| if f < PIECE_FEATURES { 1.0 } else { 0.0 }).collect();
    let on_board = g.initializer("bucket.pieces", &[FEATURES as i64, 1], &on_board);
    let pieces = g.node("MatMul", &[INPUT_NAME, &on_board], "bucket.pieces.sum", vec![]);
    let most = g.initializer("bucket.max_pieces", &[], &[MAX_PIECES as f32]);
    let pieces = g.node("Clip", &[&pieces, zero, &most], "bucket.pieces.clip", vec![]);
    let buckets = g.initializer("bucket.count", &[], &[k as f32]);
    let scaled = g.node("Mul", &[&pieces, &buckets], "bucket.scaled", vec![]);
    let ranges = g.initializer("bucket.ranges", &[], &[(MAX_PIECES + 1) as f32]);
    let scaled = g.node("Div", &[&scaled, &ranges], "bucket.quotient", vec![]);
    let index = g.node("Floor", &[&scaled], "bucket.index", vec![]);
    let all: Vec<f32> = (0..k).map(|b| b as f32).collect();
    let all = g.initializer("bucket.all", &[1, k as i64], &all);
    let hit = g.node("Equal", &[&index, &all], "bucket.hit", vec![]);
    let one_hot = g.node("Cast", &[&hit], "bucket.one_hot", vec![attr_int("to", CAST_TO_FLOAT)]);
    let pick = |g: &mut Graph, values: &str, width: usize, name: &str| {
        // Spreads the one-hot over each bucket's `width` outputs, masks, sums the buckets.
        let spread: Vec<f32> = (0..k * k * width)
            .map(|i| if i / (k * width) == (i % (k * width)) / width { 1.0 } else { 0.0 })
            .collect();
        let spread =
            g.initializer(&format!("{name}.spread"), &[k as i64, (k * width) as i64], &spread);
        let mask = g.node("MatMul", &[&one_hot, &spread], &format!("{name}.mask"), vec![]);
        let kept = g.node("Mul", &[values, &mask], &format!("{name}.kept"), vec![]);
        let sum: Vec<f32> = (0..k * width * width)
            .map(|i| if (i / width) % width == i % width { 1.0 } else { 0.0 })
            .collect();
        let sum = g.initializer(&format!("{name}.sum"), &[(k * width) as i64, width as i64], &sum);
        g.node("MatMul", &[&kept, &sum], &format!("{name}.picked"), vec![])
    };
    [pick(g, &wdl, 3, "wdl"), pick(g, &moves_left, 1, "moves_left")]
}

/// Nodes and initializers in the order they are added (which is topological).
#[derive(Default)]
struct Graph {
    nodes: Vec<Message>,
    initializers: Vec<Message>,
}

impl Graph {
    /// Adds a node with one output named `output`; returns that name.
    fn node(&mut self, op: &str, inputs: &[&str], output: &str, attrs: Vec<Message>) -> String {
        let mut node = Message::new();
        for input in inputs {
            node.string(1, input);
        }
        node.string(2, output).string(3, output).string(4, op);
        for attr in &attrs {
            node.message(5, attr);
        }
        self.nodes.push(node);
        output.to_string()
    }

    /// Adds a float initializer; returns its name.
    fn initializer(&mut self, name: &str, dims: &[i64], data: &[f32]) -> String {
        let mut t = Message::new();
        t.ints(1, dims).int(2, FLOAT).string(8, name);
        t.bytes(9, &data.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
        self.initializers.push(t);
        name.to_string()
    }

    /// Convolution with the batch norm folded in: `w' = w * s`, `b' = beta - mean * s`, where
    /// `s = gamma / sqrt(var + eps)` per output channel.
    fn conv_bn(&mut self, input: &str, layer: &ConvBn, name: &str) -> String {
        let w = layer.conv().ws.shallow_clone();
        let dims = w.size();
        let bn = layer.bn();
        let gamma = values(bn.ws.as_ref().expect("affine batch norm"));
        let beta = values(bn.bs.as_ref().expect("affine batch norm"));
        let mean = values(&bn.running_mean);
        let var = values(&bn.running_var);
        let scale: Vec<f64> = gamma
            .iter()
            .zip(&var)
            .map(|(g, v)| f64::from(*g) / (f64::from(*v) + BN_EPS).sqrt())
            .collect();
        let per_out = (dims[1] * dims[2] * dims[3]) as usize;
        let folded: Vec<f32> = values(&w)
            .iter()
            .enumerate()
            .map(|(i, v)| (f64::from(*v) * scale[i / per_out]) as f32)
            .collect();
        let bias: Vec<f32> = (0..scale.len())
            .map(|o| (f64::from(beta[o]) - f64::from(mean[o]) * scale[o]) as f32)
            .collect();
        let w_name = self.initializer(&format!("{name}.weight"), &dims, &folded);
        let b_name = self.initializer(&format!("{name}.bias"), &[dims[0]], &bias);
        let pad = dims[2] / 2;
        let attrs = vec![
            attr_ints("kernel_shape", &dims[2..]),
            attr_ints("pads", &[pad; 4]),
            attr_ints("strides", &[1, 1]),
        ];
        self.node("Conv", &[input, &w_name, &b_name], &format!("{name}.conv"), attrs)
    }

    fn conv_bn_relu(&mut self, input: &str, layer: &ConvBn, name: &str) -> String {
        let y = self.conv_bn(input, layer, name);
        self.node("Relu", &[&y], &format!("{name}.relu"), vec![])
    }

    /// A layer stacked over `k` buckets (`w`: `[K·out, in]`) as one Gemm: over a shared input
    /// as it is, over `[B, K·in]` (`per_bucket`) block-diagonal, `[K·out, K·in]`.
    fn bucket_gemm(
        &mut self,
        input: &str,
        layer: &Linear,
        k: usize,
        per_bucket: bool,
        name: &str,
    ) -> String {
        if !per_bucket {
            return self.gemm(input, layer, name);
        }
        let size = layer.ws.size();
        let (outputs, inputs) = (size[0] as usize / k, size[1] as usize);
        let stacked = values(&layer.ws);
        let mut block = vec![0.0f32; k * outputs * k * inputs];
        for (row, weights) in stacked.chunks_exact(inputs).enumerate() {
            let b = row / outputs;
            let start = row * k * inputs + b * inputs;
            block[start..start + inputs].copy_from_slice(weights);
        }
        let dims = [(k * outputs) as i64, (k * inputs) as i64];
        let w = self.initializer(&format!("{name}.weight"), &dims, &block);
        let bs = layer.bs.as_ref().expect("linear layers have a bias");
        let b = self.initializer(&format!("{name}.bias"), &bs.size(), &values(bs));
        self.node("Gemm", &[input, &w, &b], &format!("{name}.gemm"), vec![attr_int("transB", 1)])
    }

    /// `x @ w^T + b` for a tch linear layer (`w`: `[out, in]`).
    fn gemm(&mut self, input: &str, layer: &Linear, name: &str) -> String {
        let w = self.initializer(&format!("{name}.weight"), &layer.ws.size(), &values(&layer.ws));
        let bs = layer.bs.as_ref().expect("linear layers have a bias");
        let b = self.initializer(&format!("{name}.bias"), &bs.size(), &values(bs));
        self.node("Gemm", &[input, &w, &b], &format!("{name}.gemm"), vec![attr_int("transB", 1)])
    }

    /// A head's trunk: conv1x1 + bn + relu, flatten, fc.
    fn head(&mut self, input: &str, conv: &ConvBn, fc: &Linear, name: &str) -> String {
        let y = self.conv_bn_relu(input, conv, name);
        let flat = self.node("Flatten", &[&y], &format!("{name}.flat"), vec![attr_int("axis", 1)]);
        self.gemm(&flat, fc, &format!("{name}.fc"))
    }
}

/// A tensor's values as f32, in row-major order.
fn values(t: &Tensor) -> Vec<f32> {
    Vec::<f32>::try_from(t.to_kind(tch::Kind::Float).flatten(0, -1))
        .expect("a float tensor converts to Vec<f32>")
}

fn attr_int(name: &str, v: i64) -> Message {
    let mut a = Message::new();
    a.string(1, name).int(3, v).int(20, ATTR_INT);
    a
}

fn attr_ints(name: &str, vs: &[i64]) -> Message {
    let mut a = Message::new();
    a.string(1, name).ints(8, vs).int(20, ATTR_INTS);
    a
}

/// A float tensor `ValueInfoProto`; `None` dimensions are the symbolic `batch`.
fn value_info(name: &str, dims: &[Option<i64>]) -> Message {
    let mut shape = Message::new();
    for d in dims {
        let mut dim = Message::new();
        match d {
            Some(v) => dim.int(1, *v),
            None => dim.string(2, "batch"),
        };
        shape.message(1, &dim);
    }
    let mut tensor = Message::new();
    tensor.int(1, FLOAT).message(2, &shape);
    let mut ty = Message::new();
    ty.message(1, &tensor);
    let mut info = Message::new();
    info.string(1, name).message(2, &ty);
    info
}
