/** Sent as the install's `sdk_version`; the build test keeps it equal to package.json's version. */
export const SDK_VERSION = '0.1.0';
