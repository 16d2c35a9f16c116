import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Matches, MaxLength } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';

export class SignupDto {
  @ApiProperty({ example: 'Acme video', minLength: 1, maxLength: 100 })
  @IsText(100)
  workspace_name: string;

  @ApiProperty({ example: 'dev@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;
}

export class VerifySignupDto {
  @ApiProperty({ example: 'dev@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({ example: '123456', description: 'The 6-digit code from the verification email' })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code must be the 6 digits from the email' })
  code: string;
}

export class AuthSyncDto {
  @ApiProperty({ description: "An OIDC ID token from the deployment's identity provider" })
  @IsText(16384)
  id_token: string;
}
