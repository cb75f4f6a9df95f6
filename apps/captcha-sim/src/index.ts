export { buildCaptchaSimulator, type CaptchaSimulator, type CaptchaSimulatorOptions, type SiteverifyCall } from "./server.js";
