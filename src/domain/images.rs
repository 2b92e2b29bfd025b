//! Image decoding with explicit bounds, shared by custom emoji and upload thumbnails: what an
//! image is (format, dimensions after its orientation, whether it is animated), the
//! thumbnails of uploaded images, and the 64x64 pictures custom emoji are stored as.
//!
//! Every decode states its limits before the decoder allocates: width and height each at most
//! [`MAX_SIDE`], at most [`MAX_PIXELS`] pixels, and at most [`MAX_ALLOC`] bytes held at once,
//! so a small file declaring a huge image is refused from its header. The bytes are reserved
//! up front, summed over everything a decode makes: the decoder's output at the real colour
//! type and bit depth (16-bit RGBA is 8 bytes a pixel), a GIF frame's own buffer, and the
//! scaled, upright, 8-bit and encoded copies. Animated emoji are budgeted over their frames:
//! at most [`MAX_EMOJI_FRAMES`] frames, [`MAX_EMOJI_PIXELS`] decoded pixels in all (each frame
//! decodes to the whole canvas) and [`EMOJI_DEADLINE`] of decoding, checked between frames;
//! a GIF's frames are read from its block structure before any is decoded, and one reaching
//! outside the logical screen is refused. Only PNG, JPEG, GIF and WebP are read; the format is
//! sniffed from the bytes, never taken from a name or a client's content type. Pure: no
//! database, no files, no HTTP. Callers run these on the CPU threads.

use std::io::Cursor;
use std::time::{Duration, Instant};

use image::codecs::gif::{GifDecoder, GifEncoder, Repeat};
use image::codecs::png::{PngDecoder, PngEncoder};
use image::codecs::webp::{WebPDecoder, WebPEncoder};
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{
    AnimationDecoder, DynamicImage, Frame, ImageDecoder, ImageFormat, ImageReader, Limits,
};

use crate::error::{Error, Result};

/// Longest side of an image that is decoded at all.
pub const MAX_SIDE: u32 = 16_384;
/// Most pixels of an image that is decoded (upstream refuses 90 million; a small server less).
pub const MAX_PIXELS: u64 = 50_000_000;
/// Most bytes a decode holds: the decoder's allocations, its output and every copy made of it.
pub const MAX_ALLOC: u64 = 256 * 1024 * 1024;
/// Most decoded pixels of an emoji source, over all frames of an animation.
pub const MAX_EMOJI_PIXELS: u64 = 16_000_000;
/// Most frames of an animated emoji.
pub const MAX_EMOJI_FRAMES: usize = 500;
/// Longest the frames of an animated emoji are decoded for (checked between frames).
pub const EMOJI_DEADLINE: Duration = Duration::from_secs(10);
/// The side of a custom emoji, as upstream scales them.
pub const EMOJI_SIZE: u32 = 64;
/// Largest stored emoji picture (upstream's `MAX_EMOJI_GIF_FILE_SIZE_BYTES`).
const MAX_EMOJI_BYTES: usize = 128 * 1024;

/// What a stored image is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub format: ImageFormat,
    /// As shown, after the orientation the file declares.
    pub width: u32,
    pub height: u32,
    /// More than one frame (animated GIF, APNG, animated WebP).
    pub animated: bool,
    /// Bytes a pixel of the decoder's output takes (its colour type and bit depth).
    bytes_per_pixel: u64,
    /// The declared orientation turns the picture a quarter (so making it upright copies it).
    turned: bool,
    /// Bytes the decoder allocates besides its output (a GIF frame's own buffer).
    scratch: u64,
}

impl Probe {
    /// The content type of the format.
    pub fn content_type(&self) -> &'static str {
        match self.format {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            _ => "image/webp",
        }
    }

    /// Bytes of the decoder's output.
    fn decoded_bytes(&self) -> u64 {
        picture_bytes(self.width, self.height, self.bytes_per_pixel)
    }
}

fn bad_image(msg: &'static str) -> Error {
    Error::coded("BAD_IMAGE", msg, Vec::new())
}

fn undecodable() -> Error {
    bad_image("Could not decode image; did you upload an image file?")
}

fn too_large() -> Error {
    bad_image("Image size exceeds limit.")
}

fn corrupted() -> Error {
    bad_image("Image is corrupted or truncated")
}

fn frame_outside() -> Error {
    bad_image("Image frame extends beyond the image.")
}

fn too_many_frames() -> Error {
    bad_image("Image has too many frames.")
}

fn too_slow() -> Error {
    bad_image("Image takes too long to decode.")
}

fn limits() -> Limits {
    let mut l = Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(MAX_ALLOC);
    l
}

fn decode_error(e: image::ImageError) -> Error {
    match e {
        image::ImageError::Limits(_) => too_large(),
        image::ImageError::Unsupported(_) => undecodable(),
        _ => corrupted(),
    }
}

/// Bytes of a `width` x `height` picture of `bytes_per_pixel` bytes a pixel.
fn picture_bytes(width: u32, height: u32, bytes_per_pixel: u64) -> u64 {
    u64::from(width) * u64::from(height) * bytes_per_pixel
}

/// Refuses a decode that would hold more than [`MAX_ALLOC`] bytes.
fn reserve(bytes: u64) -> Result<()> {
    if bytes > MAX_ALLOC {
        return Err(too_large());
    }
    Ok(())
}

fn format_of(data: &[u8]) -> Result<ImageFormat> {
    let format = image::guess_format(data).map_err(|_| undecodable())?;
    match format {
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP => Ok(format),
        _ => Err(bad_image("Invalid image format")),
    }
}

/// The number of frames of a GIF, read by the GIF decoder's own parser with no pixel data
/// decompressed; refuses a frame reaching outside the logical screen (the decoder would
/// decode all of it) and more than `max_frames` frames.
fn gif_frames(data: &[u8], max_frames: usize) -> Result<usize> {
    let mut options = gif::DecodeOptions::new();
    options.skip_frame_decoding(true);
    let mut decoder = options
        .read_info(Cursor::new(data))
        .map_err(|_| corrupted())?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let mut frames = 0;
    while let Some(f) = decoder.next_frame_info().map_err(|_| corrupted())? {
        if u32::from(f.left) + u32::from(f.width) > width
            || u32::from(f.top) + u32::from(f.height) > height
        {
            return Err(frame_outside());
        }
        frames += 1;
        if frames > max_frames {
            return Err(too_many_frames());
        }
    }
    if frames == 0 {
        return Err(corrupted());
    }
    Ok(frames)
}

fn is_animated(format: ImageFormat, data: &[u8]) -> Result<bool> {
    Ok(match format {
        ImageFormat::Gif => gif_frames(data, usize::MAX)? > 1,
        ImageFormat::Png => PngDecoder::with_limits(Cursor::new(data), limits())
            .and_then(|d| d.is_apng())
            .map_err(decode_error)?,
        ImageFormat::WebP => WebPDecoder::new(Cursor::new(data))
            .map_err(decode_error)?
            .has_animation(),
        _ => false,
    })
}

/// Reads what an image is from its headers (no pixels are decoded); refuses what is not a
/// PNG, JPEG, GIF or WebP, what exceeds the limits, and a GIF with a frame outside its screen
/// (so what is probed here decodes no more than its canvas).
pub fn probe(data: &[u8]) -> Result<Probe> {
    let format = format_of(data)?;
    let mut reader = ImageReader::with_format(Cursor::new(data), format);
    reader.limits(limits());
    let mut decoder = reader.into_decoder().map_err(decode_error)?;
    let (w, h) = decoder.dimensions();
    if w == 0 || h == 0 {
        return Err(undecodable());
    }
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(too_large());
    }
    let turned = matches!(
        decoder.orientation(),
        Ok(Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH)
    );
    let bytes_per_pixel = u64::from(decoder.color_type().bytes_per_pixel());
    let (width, height) = if turned { (h, w) } else { (w, h) };
    Ok(Probe {
        format,
        width,
        height,
        animated: is_animated(format, data)?,
        bytes_per_pixel,
        turned,
        // A frame's own RGBA buffer, no larger than the screen it was checked to fit.
        scratch: if format == ImageFormat::Gif {
            picture_bytes(w, h, 4)
        } else {
            0
        },
    })
}

/// Decodes the (first frame of the) image as stored, and the orientation that makes it
/// upright.
fn decode(data: &[u8], format: ImageFormat) -> Result<(DynamicImage, Orientation)> {
    let mut reader = ImageReader::with_format(Cursor::new(data), format);
    reader.limits(limits());
    let mut decoder = reader.into_decoder().map_err(decode_error)?;
    let orientation = decoder.orientation().map_err(decode_error)?;
    let img = DynamicImage::from_decoder(decoder).map_err(decode_error)?;
    Ok((img, orientation))
}

/// Bytes a thumbnail fitting `max_width` x `max_height` holds, all counted as held at once:
/// the decoder's output and scratch, the scaled picture in the decoded type, its upright copy
/// when the orientation turns it (it is turned after scaling), and the 8-bit picture and its
/// encoding.
fn thumbnail_bytes(p: &Probe, max_width: u32, max_height: u32) -> u64 {
    let (w, h) = (p.width.min(max_width), p.height.min(max_height));
    let scaled = if (w, h) == (p.width, p.height) {
        0
    } else {
        picture_bytes(w, h, p.bytes_per_pixel)
    };
    let upright = if p.turned {
        picture_bytes(w, h, p.bytes_per_pixel)
    } else {
        0
    };
    p.decoded_bytes() + p.scratch + scaled + upright + 2 * picture_bytes(w, h, 4)
}

/// Refuses an image whose thumbnail fitting `max_width` x `max_height` would hold more than
/// [`MAX_ALLOC`] bytes (checked at upload, so no preview is offered of it).
pub fn check_thumbnail(p: &Probe, max_width: u32, max_height: u32) -> Result<()> {
    reserve(thumbnail_bytes(p, max_width, max_height))
}

/// A still thumbnail of an image fitting `max_width` x `max_height` (never enlarged), as
/// lossless WebP.
pub fn thumbnail_webp(data: &[u8], max_width: u32, max_height: u32) -> Result<Vec<u8>> {
    let p = probe(data)?;
    check_thumbnail(&p, max_width, max_height)?;
    let (img, orientation) = decode(data, p.format)?;
    // Scaled as stored, then turned: the upright copy is of the small picture.
    let (bw, bh) = if p.turned {
        (max_height, max_width)
    } else {
        (max_width, max_height)
    };
    let mut img = if img.width() > bw || img.height() > bh {
        let small = img.thumbnail(bw, bh);
        drop(img);
        small
    } else {
        img
    };
    img.apply_orientation(orientation);
    let img = if img.color().has_alpha() {
        DynamicImage::ImageRgba8(img.to_rgba8())
    } else {
        DynamicImage::ImageRgb8(img.to_rgb8())
    };
    let mut out = Vec::new();
    img.write_with_encoder(WebPEncoder::new_lossless(&mut out))
        .map_err(|e| Error::internal(format!("encoding a thumbnail: {e}")))?;
    Ok(out)
}

/// A custom emoji as stored: the picture, its extension, and for an animation a still PNG of
/// its first frame.
#[derive(Debug)]
pub struct EmojiImage {
    pub data: Vec<u8>,
    /// `png` or `gif`.
    pub ext: &'static str,
    pub still: Option<Vec<u8>>,
}

/// Bytes of one 64x64 emoji picture in 8-bit RGBA.
const EMOJI_PICTURE_BYTES: u64 = (EMOJI_SIZE as u64) * (EMOJI_SIZE as u64) * 4;

/// Bytes [`square`] holds for a `width` x `height` picture of `bytes_per_pixel` bytes a
/// pixel: the centred square cut out of it, the vertical pass of the resize (the square's
/// width by 64 rows of 32-bit float RGBA) and the 64x64 result.
fn square_bytes(width: u32, height: u32, bytes_per_pixel: u64) -> u64 {
    let side = width.min(height);
    picture_bytes(side, side, bytes_per_pixel)
        + picture_bytes(side, EMOJI_SIZE, 16)
        + picture_bytes(EMOJI_SIZE, EMOJI_SIZE, bytes_per_pixel)
}

/// The centred square of `img` scaled to 64x64 (cut first, so a long thin picture is not
/// scaled to a long thin 64-pixel-high strip before it is cropped).
fn square(img: &DynamicImage) -> DynamicImage {
    let side = img.width().min(img.height());
    let (x, y) = ((img.width() - side) / 2, (img.height() - side) / 2);
    img.crop_imm(x, y, side, side)
        .resize_exact(EMOJI_SIZE, EMOJI_SIZE, FilterType::Triangle)
}

/// Bytes a still emoji holds: the decoder's output and scratch, [`square`]'s, the upright
/// copy, and the 8-bit picture and its PNG.
fn still_emoji_bytes(p: &Probe) -> u64 {
    let upright = if p.turned {
        picture_bytes(EMOJI_SIZE, EMOJI_SIZE, p.bytes_per_pixel)
    } else {
        0
    };
    p.decoded_bytes()
        + p.scratch
        + square_bytes(p.width, p.height, p.bytes_per_pixel)
        + upright
        + 2 * EMOJI_PICTURE_BYTES
}

/// Bytes an animated emoji of `frames` frames on a `width` x `height` canvas holds: the
/// decoder's canvas, and per frame its own buffer and the composed picture (each at most the
/// canvas, 8-bit RGBA) and [`square`]'s; the 64x64 frames kept for the GIF and its still, and
/// as much again for encoding.
fn animated_emoji_bytes(width: u32, height: u32, frames: u64) -> u64 {
    3 * picture_bytes(width, height, 4)
        + square_bytes(width, height, 4)
        + 2 * (frames + 1) * EMOJI_PICTURE_BYTES
}

/// Decoded pixels of `frames` frames on a `width` x `height` canvas (each frame is composed
/// onto the whole canvas).
fn animated_pixels(width: u32, height: u32, frames: u64) -> u64 {
    u64::from(width) * u64::from(height) * frames
}

/// Refuses an animation of `frames` frames on a `width` x `height` canvas beyond the emoji
/// budget.
fn check_animation(width: u32, height: u32, frames: usize) -> Result<()> {
    if frames > MAX_EMOJI_FRAMES {
        return Err(too_many_frames());
    }
    let n = frames as u64;
    if animated_pixels(width, height, n) > MAX_EMOJI_PIXELS {
        return Err(too_large());
    }
    reserve(animated_emoji_bytes(width, height, n))
}

fn png(img: &DynamicImage) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(img.to_rgba8())
        .write_with_encoder(PngEncoder::new(&mut out))
        .map_err(|e| Error::internal(format!("encoding an emoji: {e}")))?;
    Ok(out)
}

fn frames_of(data: &[u8], format: ImageFormat) -> Result<image::Frames<'_>> {
    let cursor = Cursor::new(data);
    Ok(match format {
        ImageFormat::Gif => {
            let mut d = GifDecoder::new(cursor).map_err(decode_error)?;
            d.set_limits(limits()).map_err(decode_error)?;
            d.into_frames()
        }
        ImageFormat::Png => PngDecoder::with_limits(cursor, limits())
            .and_then(|d| d.apng())
            .map_err(decode_error)?
            .into_frames(),
        _ => WebPDecoder::new(cursor)
            .map_err(decode_error)?
            .into_frames(),
    })
}

/// Scales an uploaded emoji image to 64x64 pixels (cropped to a centred square, as upstream
/// does): a still image becomes a PNG; an animation a GIF with a still PNG of its first
/// frame.
pub fn emoji(data: &[u8]) -> Result<EmojiImage> {
    emoji_until(data, Instant::now() + EMOJI_DEADLINE)
}

/// [`emoji`], refusing an animation still being decoded at `deadline`.
fn emoji_until(data: &[u8], deadline: Instant) -> Result<EmojiImage> {
    let p = probe(data)?;
    if u64::from(p.width) * u64::from(p.height) > MAX_EMOJI_PIXELS {
        return Err(too_large());
    }
    if !p.animated {
        reserve(still_emoji_bytes(&p))?;
        let (img, orientation) = decode(data, p.format)?;
        let mut small = square(&img);
        drop(img);
        small.apply_orientation(orientation);
        let out = png(&small)?;
        if out.len() > MAX_EMOJI_BYTES {
            return Err(too_large());
        }
        return Ok(EmojiImage {
            data: out,
            ext: "png",
            still: None,
        });
    }
    // Frames are composed onto the canvas as stored (the orientation is not applied).
    let (width, height) = if p.turned {
        (p.height, p.width)
    } else {
        (p.width, p.height)
    };
    if p.format == ImageFormat::Gif {
        // Every frame is known before any is decoded.
        check_animation(width, height, gif_frames(data, MAX_EMOJI_FRAMES)?)?;
    }
    let mut frames = Vec::new();
    let mut still = None;
    for frame in frames_of(data, p.format)? {
        let frame = frame.map_err(decode_error)?;
        // APNG and WebP frames are counted as they come (their decoders keep each within the
        // canvas, so at most one frame past the budget is decoded).
        check_animation(width, height, frames.len() + 1)?;
        let delay = frame.delay();
        let small = square(&DynamicImage::ImageRgba8(frame.into_buffer()));
        if still.is_none() {
            still = Some(png(&small)?);
        }
        frames.push(Frame::from_parts(small.into_rgba8(), 0, 0, delay));
        if Instant::now() >= deadline {
            return Err(too_slow());
        }
    }
    let Some(still) = still else {
        return Err(undecodable());
    };
    let mut out = Vec::new();
    {
        let mut enc = GifEncoder::new_with_speed(&mut out, 10);
        enc.set_repeat(Repeat::Infinite)
            .and_then(|_| enc.encode_frames(frames))
            .map_err(|e| Error::internal(format!("encoding an emoji: {e}")))?;
    }
    if out.len() > MAX_EMOJI_BYTES || still.len() > MAX_EMOJI_BYTES {
        return Err(too_large());
    }
    Ok(EmojiImage {
        data: out,
        ext: "gif",
        still: Some(still),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgba};

    fn png_of(w: u32, h: u32) -> Vec<u8> {
        let img = ImageBuffer::from_pixel(w, h, Rgba([200u8, 10, 10, 255]));
        let mut out = Vec::new();
        DynamicImage::ImageRgba8(img)
            .write_with_encoder(PngEncoder::new(&mut out))
            .unwrap();
        out
    }

    fn gif_of(frames: usize) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = GifEncoder::new(&mut out);
            for i in 0..frames {
                let img = ImageBuffer::from_pixel(8, 6, Rgba([i as u8 * 40, 0, 0, 255]));
                enc.encode_frame(Frame::new(img)).unwrap();
            }
        }
        out
    }

    /// A PNG whose header declares `w` x `h` pixels, with no pixel data.
    pub(crate) fn png_header(w: u32, h: u32) -> Vec<u8> {
        png_header_of(w, h, 8, 6)
    }

    /// A PNG of `w` x `h` pixels of this bit depth and colour type (6: RGBA) with its pixel data
    /// cut off after the zlib header.
    fn png_header_of(w: u32, h: u32, depth: u8, colour: u8) -> Vec<u8> {
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(b"IHDR");
        ihdr.extend_from_slice(&w.to_be_bytes());
        ihdr.extend_from_slice(&h.to_be_bytes());
        ihdr.extend_from_slice(&[depth, colour, 0, 0, 0]);
        let crc = crc32(&ihdr);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        out.extend_from_slice(&13u32.to_be_bytes());
        out.extend_from_slice(&ihdr);
        out.extend_from_slice(&crc.to_be_bytes());
        // The start of an image data chunk (a zlib header), so the header reads as complete.
        let idat = b"IDAT\x78\x9c";
        out.extend_from_slice(&2u32.to_be_bytes());
        out.extend_from_slice(idat);
        out.extend_from_slice(&crc32(idat).to_be_bytes());
        out
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn probes_read_headers() {
        let p = probe(&png_of(30, 20)).unwrap();
        assert_eq!((p.width, p.height, p.animated), (30, 20, false));
        assert_eq!(p.content_type(), "image/png");
        assert!(!probe(&gif_of(1)).unwrap().animated);
        assert!(probe(&gif_of(3)).unwrap().animated);
        assert!(probe(b"not an image at all").is_err());
    }

    #[test]
    fn huge_declared_images_are_refused_from_the_header() {
        let e = probe(&png_header(100_000, 100_000)).unwrap_err();
        assert_eq!(e.msg, "Image size exceeds limit.");
        assert!(probe(&png_header(10_000, 10_000)).is_err());
        assert!(thumbnail_webp(&png_header(100_000, 100_000), 840, 560).is_err());
        assert!(emoji(&png_header(100_000, 100_000)).is_err());
        // A plausible header with no pixel data decodes to an error, not a panic.
        assert!(thumbnail_webp(&png_header(100, 100), 840, 560).is_err());
    }

    #[test]
    fn thumbnails_fit_the_box() {
        let t = thumbnail_webp(&png_of(1680, 560), 840, 560).unwrap();
        let p = probe(&t).unwrap();
        assert_eq!((p.format, p.width, p.height), (ImageFormat::WebP, 840, 280));
        let t = thumbnail_webp(&png_of(10, 10), 840, 560).unwrap();
        assert_eq!(probe(&t).unwrap().width, 10);
    }

    #[test]
    fn emoji_are_squares() {
        let e = emoji(&png_of(100, 50)).unwrap();
        assert_eq!(e.ext, "png");
        let p = probe(&e.data).unwrap();
        assert_eq!((p.width, p.height), (64, 64));
        let e = emoji(&gif_of(3)).unwrap();
        assert_eq!(e.ext, "gif");
        assert!(probe(&e.data).unwrap().animated);
        assert_eq!(probe(e.still.as_ref().unwrap()).unwrap().width, 64);
    }

    /// A GIF with a `screen` logical screen and frames of these `(left, top, width, height)`.
    fn gif_with(screen: (u16, u16), frames: &[(u16, u16, u16, u16)]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc =
                gif::Encoder::new(&mut out, screen.0, screen.1, &[0, 0, 0, 255, 0, 0]).unwrap();
            for &(left, top, width, height) in frames {
                let pixels = vec![1u8; usize::from(width) * usize::from(height)];
                let mut f = gif::Frame::from_indexed_pixels(width, height, pixels, None);
                (f.left, f.top) = (left, top);
                enc.write_frame(&f).unwrap();
            }
        }
        out
    }

    fn probe_of(width: u32, height: u32, bytes_per_pixel: u64, turned: bool) -> Probe {
        Probe {
            format: ImageFormat::Png,
            width,
            height,
            animated: false,
            bytes_per_pixel,
            turned,
            scratch: 0,
        }
    }

    #[test]
    fn probes_read_the_decoders_real_pixel_size() {
        assert_eq!(
            probe(&png_header_of(10, 10, 16, 6))
                .unwrap()
                .bytes_per_pixel,
            8
        );
        assert_eq!(
            probe(&png_header_of(10, 10, 16, 2))
                .unwrap()
                .bytes_per_pixel,
            6
        );
        assert_eq!(
            probe(&png_header_of(10, 10, 8, 6)).unwrap().bytes_per_pixel,
            4
        );
        assert_eq!(
            probe(&png_header_of(10, 10, 8, 0)).unwrap().bytes_per_pixel,
            1
        );
        let g = probe(&gif_of(1)).unwrap();
        assert_eq!((g.bytes_per_pixel, g.scratch), (4, 8 * 6 * 4));
    }

    #[test]
    fn thumbnail_budget_counts_every_copy() {
        // Larger than the box, upright: output, the scaled picture (bounded by the box), and
        // its 8-bit copy and encoding.
        let p = probe_of(1000, 500, 8, false);
        assert_eq!(
            thumbnail_bytes(&p, 840, 560),
            1000 * 500 * 8 + 840 * 500 * 8 + 2 * 840 * 500 * 4
        );
        // Turned: the scaled picture is copied upright once more.
        let p = probe_of(1000, 500, 8, true);
        assert_eq!(
            thumbnail_bytes(&p, 840, 560),
            1000 * 500 * 8 + 2 * 840 * 500 * 8 + 2 * 840 * 500 * 4
        );
        // Within the box nothing is scaled.
        let p = probe_of(100, 50, 3, false);
        assert_eq!(
            thumbnail_bytes(&p, 840, 560),
            100 * 50 * 3 + 2 * 100 * 50 * 4
        );
        // A GIF's frame buffer counts.
        let mut p = probe_of(100, 50, 4, false);
        p.scratch = 100 * 50 * 4;
        assert_eq!(
            thumbnail_bytes(&p, 840, 560),
            2 * 100 * 50 * 4 + 2 * 100 * 50 * 4
        );
    }

    #[test]
    fn sixteen_bit_pictures_beyond_the_cap_are_refused_before_decoding() {
        // 6000 x 6000 16-bit RGBA is 288 MB decoded: refused from its header alone (it holds
        // no pixel data, so a decode would fail differently).
        let big = png_header_of(6000, 6000, 16, 6);
        let p = probe(&big).unwrap();
        assert!(p.decoded_bytes() > MAX_ALLOC);
        assert_eq!(
            check_thumbnail(&p, 840, 560).unwrap_err().msg,
            "Image size exceeds limit."
        );
        assert_eq!(
            thumbnail_webp(&big, 840, 560).unwrap_err().msg,
            "Image size exceeds limit."
        );
        // The same size at 8-bit RGB fits, and gets as far as the (missing) pixel data.
        let rgb = png_header_of(6000, 6000, 8, 2);
        check_thumbnail(&probe(&rgb).unwrap(), 840, 560).unwrap();
        assert_eq!(
            thumbnail_webp(&rgb, 840, 560).unwrap_err().msg,
            "Image is corrupted or truncated"
        );
        // A real 16-bit picture within the cap is thumbnailed.
        let img = image::ImageBuffer::from_pixel(30, 20, Rgba([1000u16, 2, 3, 65535]));
        let mut png16 = Vec::new();
        DynamicImage::ImageRgba16(img)
            .write_with_encoder(PngEncoder::new(&mut png16))
            .unwrap();
        assert_eq!(probe(&png16).unwrap().bytes_per_pixel, 8);
        let t = thumbnail_webp(&png16, 840, 560).unwrap();
        assert_eq!(probe(&t).unwrap().width, 30);
    }

    #[test]
    fn emoji_budgets_count_the_square_and_every_frame() {
        assert_eq!(
            square_bytes(300, 100, 4),
            100 * 100 * 4 + 100 * 64 * 16 + 64 * 64 * 4
        );
        let p = probe_of(300, 100, 8, true);
        assert_eq!(
            still_emoji_bytes(&p),
            300 * 100 * 8 + square_bytes(300, 100, 8) + 64 * 64 * 8 + 2 * 64 * 64 * 4
        );
        assert_eq!(
            animated_emoji_bytes(100, 50, 10),
            3 * 100 * 50 * 4 + square_bytes(100, 50, 4) + 2 * 11 * 64 * 64 * 4
        );
        assert_eq!(animated_pixels(1000, 1000, 16), 16_000_000);
        check_animation(1000, 1000, 16).unwrap();
        assert_eq!(
            check_animation(1000, 1000, 17).unwrap_err().msg,
            "Image size exceeds limit."
        );
        check_animation(1, 1, MAX_EMOJI_FRAMES).unwrap();
        assert_eq!(
            check_animation(1, 1, MAX_EMOJI_FRAMES + 1).unwrap_err().msg,
            "Image has too many frames."
        );
        // The pixel budget keeps the memory under the cap: a 16-megapixel canvas is held
        // three times over, with its square.
        assert!(animated_emoji_bytes(4000, 4000, 1) <= MAX_ALLOC);
        assert!(reserve(animated_emoji_bytes(4096, 4096, 1)).is_err());
    }

    #[test]
    fn gif_frames_are_read_without_decoding_and_kept_on_the_screen() {
        let g = gif_with((10, 10), &[(0, 0, 10, 10), (2, 3, 8, 7), (9, 9, 1, 1)]);
        assert_eq!(gif_frames(&g, 10).unwrap(), 3);
        assert_eq!(
            gif_frames(&g, 2).unwrap_err().msg,
            "Image has too many frames."
        );
        for outside in [(0, 0, 11, 10), (0, 0, 10, 11), (1, 0, 10, 10), (9, 9, 2, 1)] {
            let g = gif_with((10, 10), &[(0, 0, 10, 10), outside]);
            assert_eq!(
                gif_frames(&g, 10).unwrap_err().msg,
                "Image frame extends beyond the image."
            );
            assert!(probe(&g).is_err());
            assert!(emoji(&g).is_err());
            assert!(thumbnail_webp(&g, 840, 560).is_err());
        }
        // A single frame larger than its screen is refused too.
        let g = gif_with((10, 10), &[(0, 0, 200, 200)]);
        assert!(emoji(&g).is_err());
        assert!(gif_frames(b"GIF89a\x01\x00", 10).is_err());
    }

    #[test]
    fn animations_past_the_budget_or_the_deadline_are_refused() {
        // 17 one-pixel frames on a 1000 x 1000 screen decode to 17 million pixels.
        let g = gif_with((1000, 1000), &[(0, 0, 1, 1); 17]);
        assert_eq!(emoji(&g).unwrap_err().msg, "Image size exceeds limit.");
        let g = gif_with((1, 1), &[(0, 0, 1, 1); MAX_EMOJI_FRAMES + 1]);
        assert_eq!(emoji(&g).unwrap_err().msg, "Image has too many frames.");
        let g = gif_with((1, 1), &[(0, 0, 1, 1); MAX_EMOJI_FRAMES]);
        assert_eq!(emoji(&g).unwrap().ext, "gif");
        // A deadline already passed stops the decode after its first frame.
        let e = emoji_until(&gif_of(3), Instant::now()).unwrap_err();
        assert_eq!(e.msg, "Image takes too long to decode.");
        // Stills have no frames to check between.
        assert_eq!(
            emoji_until(&png_of(10, 10), Instant::now()).unwrap().ext,
            "png"
        );
    }

    #[test]
    fn long_thin_emoji_are_cut_before_they_are_scaled() {
        let e = emoji(&png_of(4000, 3)).unwrap();
        let p = probe(&e.data).unwrap();
        assert_eq!((p.width, p.height), (64, 64));
    }
}
