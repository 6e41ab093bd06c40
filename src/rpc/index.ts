export * from './client.js';
export * from './errors.js';
export * from './url.js';
export * from './fetch.js';
export * from './capabilities.js';
