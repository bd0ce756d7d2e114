/**
 * Where the data of seed 004's block properties lives: one fixed key of `state.runtime` per
 * property (shared by the instance's blocks), and the limits of what it holds. No imports:
 * the page (web/src) reads the same table, so what the engine accepts and what the page
 * draws cannot drift apart.
 */

/** Each block property and the `state.runtime` key whose value it draws. */
export const BLOCK_DATA_KEYS = {
  showProgress: 'progress',
  showStatus: 'status',
  showImages: 'images',
  showTable: 'table',
  showCountInput: 'count',
  showTaskId: 'taskId',
} as const;
export type BlockDataProp = keyof typeof BLOCK_DATA_KEYS;
export type BlockDataKey = (typeof BLOCK_DATA_KEYS)[BlockDataProp];

/** A status's levels (`{ text, level }`); a status given as text alone is `info`. */
export const STATUS_LEVELS = ['info', 'success', 'warning', 'error'] as const;
export type StatusLevel = (typeof STATUS_LEVELS)[number];

/** The image types the page draws: raster formats only (an SVG can carry script and links). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'] as const;

/** An image given inline: a base64 data URL of one of IMAGE_MEDIA_TYPES. Nothing else is loaded (no http:, no other site). */
export const IMAGE_DATA_URL = /^data:image\/(?:png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/]+={0,2}$/;

export const BLOCK_DATA_LIMITS = {
  /** A status's text, a cell's text. */
  text: 2000,
  /** A progress label, an image's alt and caption, a column's label, a task id. */
  label: 200,
  images: 24,
  /** One data URL, in characters (about 300 KB of image). */
  dataUrl: 400_000,
  rows: 500,
  columns: 20,
} as const;

/** A progress without `max` counts to this (a percentage). */
export const PROGRESS_MAX = 100;
