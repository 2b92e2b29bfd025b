//! Image decoding with explicit bounds, shared by custom emoji and upload thumbnails: what an
//! image is (format, dimensions after its orientation, whether it is animated), the
//! thumbnails of uploaded images, and the 64x64 pictures custom emoji are stored as.
//!
//! Every decode states its limits before the decoder allocates: width and height each at most
//! [`MAX_SIDE`], at most [`MAX_PIXELS`] pixels (animations: counted over their frames), and a
//! cap on the decoder's allocations, so a small file declaring a huge image is refused from
//! its header. Only PNG, JPEG, GIF and WebP are read; the format is sniffed from the bytes,
//! never taken from a name or a client's content type. Pure: no database, no files, no HTTP.
//! Callers run these on the CPU threads.

use std::io::Cursor;

use image::codecs::gif::{GifDecoder, GifEncoder, Repeat};
use image::codecs::png::{PngDecoder, PngEncoder};
use image::codecs::webp::{WebPDecoder, WebPEncoder};
use image::imageops::FilterType;
use image::{
    AnimationDecoder, DynamicImage, Frame, ImageDecoder, ImageFormat, ImageReader, Limits,
};

use crate::error::{Error, Result};

/// Longest side of an image that is decoded at all.
pub const MAX_SIDE: u32 = 16_384;
/// Most pixels of an image that is decoded (upstream refuses 90 million; a small server less).
pub const MAX_PIXELS: u64 = 50_000_000;
/// Most bytes a decoder may allocate.
const MAX_ALLOC: u64 = 256 * 1024 * 1024;
/// Most pixels of an emoji source (over all frames of an animation).
const MAX_EMOJI_PIXELS: u64 = 16_000_000;
/// Most frames of an animated emoji.
const MAX_EMOJI_FRAMES: usize = 500;
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

fn format_of(data: &[u8]) -> Result<ImageFormat> {
    let format = image::guess_format(data).map_err(|_| undecodable())?;
    match format {
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP => Ok(format),
        _ => Err(bad_image("Invalid image format")),
    }
}

/// Whether a GIF has more than one image, from its block structure alone (no pixel data is
/// decompressed). Malformed structure counts as one image; the decoder reports it later.
fn gif_is_animated(data: &[u8]) -> bool {
    let byte = |i: usize| data.get(i).copied();
    let Some(flags) = byte(10) else {
        return false;
    };
    let mut i = 13;
    if flags & 0x80 != 0 {
        i += 3 << ((flags & 7) + 1);
    }
    // Skips data sub-blocks starting at `i`; the index after the terminator.
    let skip_blocks = |mut i: usize| -> Option<usize> {
        loop {
            let n = byte(i)? as usize;
            i += 1 + n;
            if n == 0 {
                return Some(i);
            }
        }
    };
    let mut images = 0;
    while let Some(b) = byte(i) {
        match b {
            0x21 => match skip_blocks(i + 2) {
                Some(next) => i = next,
                None => break,
            },
            0x2c => {
                images += 1;
                if images > 1 {
                    return true;
                }
                let Some(f) = byte(i + 9) else { break };
                i += 10;
                if f & 0x80 != 0 {
                    i += 3 << ((f & 7) + 1);
                }
                match skip_blocks(i + 1) {
                    Some(next) => i = next,
                    None => break,
                }
            }
            _ => break,
        }
    }
    false
}

fn is_animated(format: ImageFormat, data: &[u8]) -> Result<bool> {
    Ok(match format {
        ImageFormat::Gif => gif_is_animated(data),
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
/// PNG, JPEG, GIF or WebP and what exceeds the limits.
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
    let swapped = matches!(
        decoder.orientation(),
        Ok(image::metadata::Orientation::Rotate90
            | image::metadata::Orientation::Rotate270
            | image::metadata::Orientation::Rotate90FlipH
            | image::metadata::Orientation::Rotate270FlipH)
    );
    let (width, height) = if swapped { (h, w) } else { (w, h) };
    Ok(Probe {
        format,
        width,
        height,
        animated: is_animated(format, data)?,
    })
}

/// Decodes the (first frame of the) image, turned upright.
fn decode(data: &[u8], format: ImageFormat) -> Result<DynamicImage> {
    let mut reader = ImageReader::with_format(Cursor::new(data), format);
    reader.limits(limits());
    let mut decoder = reader.into_decoder().map_err(decode_error)?;
    let orientation = decoder.orientation().map_err(decode_error)?;
    let mut img = DynamicImage::from_decoder(decoder).map_err(decode_error)?;
    img.apply_orientation(orientation);
    Ok(img)
}

/// A still thumbnail of an image fitting `max_width` x `max_height` (never enlarged), as
/// lossless WebP.
pub fn thumbnail_webp(data: &[u8], max_width: u32, max_height: u32) -> Result<Vec<u8>> {
    let p = probe(data)?;
    let img = decode(data, p.format)?;
    let img = if img.width() > max_width || img.height() > max_height {
        img.thumbnail(max_width, max_height)
    } else {
        img
    };
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

fn square(img: &DynamicImage) -> DynamicImage {
    img.resize_to_fill(EMOJI_SIZE, EMOJI_SIZE, FilterType::Triangle)
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
    let p = probe(data)?;
    let per_frame = u64::from(p.width) * u64::from(p.height);
    if per_frame > MAX_EMOJI_PIXELS {
        return Err(too_large());
    }
    if !p.animated {
        let out = png(&square(&decode(data, p.format)?))?;
        if out.len() > MAX_EMOJI_BYTES {
            return Err(too_large());
        }
        return Ok(EmojiImage {
            data: out,
            ext: "png",
            still: None,
        });
    }
    let mut frames = Vec::new();
    let mut still = None;
    for frame in frames_of(data, p.format)? {
        let frame = frame.map_err(decode_error)?;
        if frames.len() >= MAX_EMOJI_FRAMES
            || per_frame * (frames.len() as u64 + 1) > MAX_EMOJI_PIXELS
        {
            return Err(too_large());
        }
        let delay = frame.delay();
        let small = square(&DynamicImage::ImageRgba8(frame.into_buffer()));
        if still.is_none() {
            still = Some(png(&small)?);
        }
        frames.push(Frame::from_parts(small.to_rgba8(), 0, 0, delay));
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
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(b"IHDR");
        ihdr.extend_from_slice(&w.to_be_bytes());
        ihdr.extend_from_slice(&h.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        let crc = crc32(&ihdr);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        out.extend_from_slice(&13u32.to_be_bytes());
        out.extend_from_slice(&ihdr);
        out.extend_from_slice(&crc.to_be_bytes());
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
}
