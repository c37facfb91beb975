export { AjaxError, type AjaxErrorOptions, type AjaxErrorRequestInfo } from './ajax-error.js'
export { RefreshTokenError, type RefreshTokenErrorOptions } from './refresh-token-error.js'
export { type ErrorCode, SdkError, SdkErrorCode, type SdkErrorOptions } from './sdk-error.js'
